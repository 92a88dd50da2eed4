"""MkDocs hook: adds the reference pages, generated from the code at build time
(mtdebias.docs_reference), so they are never copied by hand and never stale."""

from mkdocs.structure.files import File

from mtdebias.docs_reference import PAGES, generate


def on_files(files, config):
    for page in PAGES:
        files.append(File.generated(config, page, content=generate(page)))
    return files
