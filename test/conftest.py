"""pytest configuration of the whole suite: the hypothesis profile (``REGCOPY_HYPOTHESIS``,
test/python/hypothesis_profiles.py) is loaded here, before any test module is imported."""

from hypothesis_profiles import register

register()
