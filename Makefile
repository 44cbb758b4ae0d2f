# The two commands of the README.
.PHONY: run test

# Install what is missing, build, and serve everything on the embedded default.
run:
	@scripts/run.sh

# Run every test suite.
test:
	@scripts/test.sh
