"""Shared pytest fixtures."""

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "public"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The directory of public known-answer network files (``../shared/corpus/public``)."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    return CORPUS
