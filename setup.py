"""Builds the compiled kernels (`indexer/_kernels.pyx`, Cython); everything else about the
package is in pyproject.toml. `make install` (pip install -e .) runs it; gcc and the Python
headers are all it needs."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [
            Extension(
                "indexer._kernels",
                ["indexer/_kernels.pyx"],
                include_dirs=[numpy.get_include()],
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                extra_compile_args=["-O3"],
            )
        ],
        language_level=3,
    )
)
