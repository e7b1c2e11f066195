import sys

from mirage_core.cli import main

sys.exit(main())
