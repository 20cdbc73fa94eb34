"""`python -m bench`: see bench/run.py."""

from bench.run import main

raise SystemExit(main())
