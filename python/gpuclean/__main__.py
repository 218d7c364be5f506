"""python -m gpuclean OUTDIR: the demo (gpuclean.demo)."""
import sys

from .demo import main

sys.exit(main())
