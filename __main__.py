"""``python -m torch2ms``."""

from torch2ms.cli.main import main

if __name__ == "__main__":
    main()
