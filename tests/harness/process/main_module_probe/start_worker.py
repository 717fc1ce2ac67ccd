"""Run as the main module: starts one worker, runs one test, prints its return value."""

import sys
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec
from lambdafuzz.harness.process.worker import Worker

if __name__ == "__main__":
    worker = Worker(WorkerSpec(target=load_config(Path(__file__).parent / "lambdafuzz.yaml")))
    try:
        result = worker.run(TestRequest({}, 1, ReplayMode.EXECUTION_INDEXED))
    finally:
        worker.close()
    print(result.status.name, result.return_value)
    sys.exit(0)
