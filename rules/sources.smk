rule download_source:
    output:
        "resources/sources/{source}/{filename}",
    params:
        source=get_source,
        mirror=config["mirror"],
        download=config["download"],
        lockfile="resources/sources/sources.lock.tsv",
    log:
        "logs/sources/{source}/{filename}.log",
    conda:
        "../envs/lmprobes.yaml"
    script:
        "../scripts/download_source.py"
