"""What CMake needs to compile cured._torch_fast against the torch of this Python: one
KEY=VALUE line each (python/CMakeLists.txt reads them; lists separated by os.pathsep). Exit status 1, with the reason on stderr,
where this Python has no torch with CUDA."""

import os
import sys
import sysconfig

try:
    import torch
except Exception as e:  # noqa: BLE001 - any failure to import means no extension
    sys.exit("no torch: %s" % e)
if not torch.version.cuda:
    sys.exit("torch %s has no CUDA" % torch.__version__)
root = os.path.dirname(os.path.abspath(torch.__file__))
include = os.path.join(root, "include")
print("VERSION=%s" % torch.__version__)
print("VERSION_FILE=%s" % os.path.join(root, "version.py"))
print("INCLUDE_DIRS=%s" % os.pathsep.join((include, os.path.join(include, "torch", "csrc", "api", "include"))))
print("LIBRARY_DIR=%s" % os.path.join(root, "lib"))
print("CXX11_ABI=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI))
print("PYTHON_INCLUDE_DIR=%s" % sysconfig.get_paths()["include"])
print("EXTENSION_SUFFIX=%s" % sysconfig.get_config_var("EXT_SUFFIX"))
