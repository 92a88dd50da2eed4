"""MkDocs hook: adds the reference pages, generated from the code at build time
(docs_reference.py beside this file), so they are never copied by hand and never stale."""

from mkdocs.structure.files import File

from docs_reference import PAGES, generate  # MkDocs puts this folder on sys.path while loading a hook


def on_files(files, config):
    for page in PAGES:
        files.append(File.generated(config, page, content=generate(page)))
    return files
