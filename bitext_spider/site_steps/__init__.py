"""The work of the stages that needs a whole site: the content filter's judging, rescue and
sentence storage, the dictionary filter, the combined decision.  The pipelines call it page by
page; bitext_spider.resolution runs its close-time steps in order (docs/design.md)."""
