"""`python -m prefixlint` runs the command-line interface.

`python -m` puts the current folder first on `sys.path`; in a repository with its own
`logging.py` or `queue.py` next to the checked file, the standard library's module of that name
would be shadowed by the user's code. prefixlint never imports from the folder it checks (what
`python -P` does): the folder is taken off the path before anything else is imported.
"""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from prefixlint.cli import main  # noqa: E402  (after the path is made safe)

if __name__ == "__main__":
    main()
