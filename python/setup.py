"""`pip install .` from python/: the source tree's setup.py, which builds libcured_c through
CMake and packs it with the package."""

import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "setup.py"), run_name="__main__")
