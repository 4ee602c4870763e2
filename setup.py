"""Shim for ``scrapyd-deploy``, which builds eggs with ``python setup.py bdist_egg``.

Without this file scrapyd-deploy writes its own setup.py (name "project", every package found, no
package data); with it, all metadata - packages, package data, the ``scrapy`` settings entry point -
comes from pyproject.toml. Do not add anything here.
"""

from setuptools import setup

setup()
