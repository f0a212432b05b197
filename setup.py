"""Build the solver's compiled core; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "whistkit.solver._dd",
            sources=["src/whistkit/solver/_dd.c"],
            depends=["src/whistkit/solver/_dd_misere.h", "src/whistkit/solver/_dd_misere_py.h"],
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        )
    ]
)
