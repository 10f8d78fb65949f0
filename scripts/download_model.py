from lmprobes.models import download_model
from lmprobes.workflow import logged

with logged(snakemake.log):
    spec = snakemake.params.spec
    download_model(spec["hub_id"], spec["revision"], snakemake.output[0])
