"""Every corpus kernel runs under both scheduling models and must give the same answers.

The references are the same NumPy results either way, so a kernel whose output
depended on the model would fail under one of them.
"""

import pytest

import warpsim


@pytest.fixture(autouse=True, params=["its", "stack"])
def scheduling_model(request):
    with warpsim.settings(scheduling=request.param):
        yield request.param
