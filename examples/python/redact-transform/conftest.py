"""pytest setup: the SDK (plugins/sdk-python) on sys.path, as componentize-py's `-p` puts
it for the build, and this directory (pytest adds it for a conftest)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "plugins", "sdk-python"))
