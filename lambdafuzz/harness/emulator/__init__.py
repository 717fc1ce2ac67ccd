"""The AWS emulator a test's world lives in, and what makes it fast: the backends (moto
in-process, moto's server, LocalStack), loading a world, the fast AWS path, client reuse,
and what the emulator cannot answer."""
