rule download_model:
    output:
        directory("resources/models/{hub_model}"),
    log:
        "logs/models/{hub_model}.log",
    conda:
        "../envs/lmprobes.yaml"
    params:
        spec=lambda wildcards: MODELS[wildcards.hub_model],
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
        spec=lambda wildcards: MODELS[wildcards.tiny_model]["tiny"],
    script:
        "../scripts/build_tiny_model.py"
