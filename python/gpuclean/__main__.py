"""python -m gpuclean ARGS...: the gpuclean command, as the `gpuclean` console script
(gpuclean._cli: the bundled executable of a wheel install, else the checkout's build).
The demonstration is `python -m gpuclean.demo OUTDIR`."""
import sys

from ._cli import main

sys.exit(main())
