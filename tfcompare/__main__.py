"""`python -m tfcompare`: the same command line as the installed `tfcompare`."""

from tfcompare.cli import main

main()
