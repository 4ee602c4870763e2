"""Scrapy commands of the project (``COMMANDS_MODULE``): they replace Scrapy's of the same name."""
