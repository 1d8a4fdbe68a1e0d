"""LibreOffice's own way of joining documents, for bench/append.ts to compare with: a page break,
then insertDocumentFromURL, in one headless office over UNO. Prints the milliseconds the join took.
Usage: python3 bench/libreoffice-append.py OUTPUT.docx INPUT.docx...
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def main(output, inputs):
    profile = tempfile.mkdtemp(prefix="bench-lo-")
    pipe = "bench%d" % os.getpid()
    office = subprocess.Popen(["/usr/lib/libreoffice/program/soffice", "--headless", "--norestore", "--nologo",
                               "-env:UserInstallation=file://" + profile, "--accept=pipe,name=%s;urp;" % pipe])
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        ctx = None
        for _ in range(480):
            try:
                ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
                break
            except Exception:
                time.sleep(0.25)
        if ctx is None:
            sys.exit("the office did not answer within two minutes")
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        started = time.perf_counter()
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(inputs[0]), "_blank", 0, (prop("Hidden", True),))
        text = doc.getText()
        for path in inputs[1:]:
            cursor = text.createTextCursor()
            cursor.gotoEnd(False)
            text.insertControlCharacter(cursor, 0, False)  # PARAGRAPH_BREAK
            cursor.gotoEnd(False)
            cursor.setPropertyValue("BreakType", uno.Enum("com.sun.star.style.BreakType", "PAGE_BEFORE"))
            cursor.insertDocumentFromURL(uno.systemPathToFileUrl(path), ())
        doc.storeToURL(uno.systemPathToFileUrl(output), (prop("FilterName", "MS Word 2007 XML"), prop("Overwrite", True)))
        print(round((time.perf_counter() - started) * 1000))
        doc.close(True)
    finally:
        office.terminate()
        office.wait()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
