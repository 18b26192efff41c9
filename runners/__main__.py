import sys

from ._console import main

sys.exit(main())
