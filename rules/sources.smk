rule download_source:
    output:
        "resources/sources/{source}/{filename}",
    log:
        "logs/sources/{source}/{filename}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        source=get_source,
        lockfile=LOCKFILE,
    script:
        "../scripts/download_source.py"
