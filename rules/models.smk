rule download_model:
    output:
        directory("resources/models/{hub_model}"),
    log:
        "logs/models/{hub_model}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        spec=get_download_spec,
    script:
        "../scripts/download_model.py"


rule build_tiny_model:
    input:
        corpus="resources/tiny/corpus.txt",
    output:
        directory("resources/models/{tiny_model}"),
    log:
        "logs/models/{tiny_model}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        revision=REVISIONS["build_tiny_model"],
        spec=get_tiny_spec,
    script:
        "../scripts/build_tiny_model.py"
