"""Every test module runs on every PE of the job, in the same order: the tests are collective. The session
starts gshmem once per process (gshmrun, mpirun or torchrun started the processes) and ends it at the end."""

import pytest

import gshmem


@pytest.fixture(scope="session", autouse=True)
def session():
    with gshmem.init() as s:
        yield s
        gshmem.barrier_all()


@pytest.fixture
def me():
    return gshmem.my_pe()


@pytest.fixture
def npes():
    return gshmem.n_pes()


def pytest_report_header(config):
    lines = [f"gshmem {gshmem.__version__}"]
    try:
        import torch

        lines.append(f"torch {torch.__version__} from {torch.__file__}")
    except ImportError:
        lines.append("torch: not installed (its tests are skipped)")
    return lines
