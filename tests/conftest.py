import pytest

import tapete
import tapete.reference

IMPLEMENTATIONS = {"engine": tapete, "reference": tapete.reference}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def impl(request):
    return IMPLEMENTATIONS[request.param]  # has .load_game(name, **config)
