from tfcompare.cli import main

main()
