"""What a reader reads: the sentences about each metric (:mod:`.wording`) and the one Jinja environment factory that
every page is rendered by, with autoescaping (:mod:`.templating`).
"""
