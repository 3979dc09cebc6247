"""``python3 -m rcf ARGS``: the rcf binary itself, as the ``rcf`` command runs it."""

from rcf._cli import main

if __name__ == "__main__":
    main()
