"""A long-lived bridge between docsmith (Node) and one running office process over UNO.

Protocol: one JSON object per line on stdin, one answer per line on stdout.
  {"id": 1, "op": "convert", "input": "/path/in.docx", "output": "/path/out.pdf",
   "filter": "writer_pdf_Export", "filterData": {...}, "filterOptions": "...",
   "properties": {"Author": "..."}, "password": "...", "watermark": "TEST MODE"}
  -> {"id": 1, "ok": true, "ms": 23.1}
  -> {"id": 1, "ok": false, "error": "load_failed" | "password" | "export_failed" | "bad_job", "message": "..."}
  A convert job with "measure": "sectionPages" exports nothing and answers each section's page count:
  -> {"id": 1, "ok": true, "ms": 80.2, "sectionPages": [1, 2, 3]}
  A convert job with "tableBreak": {"bookmark": "...", "headerRows": 1, "last": false} lays out one
  part of a long table (src/ooxml/longTable.ts), exports its pages up to the last page a following
  part can start at, and answers where that is (null: no such page):
  -> {"id": 1, "ok": true, "tableBreak": {"pages": 5, "keep": 4, "restart": 163}}
  With "hold": true in "tableBreak", the part was made from rows before its true start (not yet
  known): the bridge loads it (without a view: not laid out yet), says so, and waits for where the
  part starts (laying it out meanwhile unless told at once), then drops the rows before it and
  numbers its pages from there; or for the word to drop the whole part:
  -> {"id": 1, "held": true}
  <- {"id": 1, "go": {"trim": 37, "page": 58}}   or   <- {"id": 1, "drop": true}
  -> (as above)                                   or   -> {"id": 1, "ok": true, "dropped": true}
  A part that is not the last says where it breaks before it exports, then answers as above:
  -> {"id": 1, "broke": {"pages": 5, "keep": 4, "restart": 163}}
  A convert job with "pages": true says when the document is read (the office lays it out next,
  reporting nothing), then, while exporting, the pages written of the document's pages (at most
  every quarter second, and the last), before its answer:
  -> {"id": 1, "loaded": true}
  -> {"id": 1, "pages": {"done": 120, "total": 600}}
  A convert job with "viewless": true loads the document without a view (no layout) and stores it
  so: for formats that need no layout (ODT), never PDF. With "textOnly": true (text output), it is
  laid out only if the body shows a page number or count (or for the test stamp), and the answer
  says whether: -> {"id": 1, "ok": true, "ms": 12.0, "laidOut": false}
  {"id": 2, "op": "ping"} -> {"id": 2, "ok": true, "ms": 0.1}
The first line written is {"ready": true, "inOffice": true} once the office answers (or "inOffice":
false with "why", below).

The conversions run inside the office process: this file is also a UNO component that the office's
own Python loads (`InOffice`), so a job is one call over the pipe instead of a few dozen, each a
round trip between two processes (the office took 15-19 % less time for a one-page PDF). Reports and a held
part's word go back through `Relay`. Where the office cannot load it ("inOffice": false), the same
`Bridge` runs here and calls the office over the pipe.

Given DOCSMITH_BRIDGE_DIRECT (a UNIX socket Node listens on), the converter inside the office
connects to it and takes the same lines there, on a thread of its own: each job then crosses one
process boundary instead of two (this process and the pipe between it and the office cost 2.1 ms of
a one-page PDF's 18.5). The ready line says "direct": true; this process then only waits for Node
to close its stdin. Where the office cannot connect, the lines go through this process as above.
"""
import json
import os
import re
import select
import socket
import sys
import threading
import time

import uno
import unohelper
from com.sun.star.beans import NamedValue, PropertyValue
from com.sun.star.connection import NoConnectException
from com.sun.star.lang import DisposedException
from com.sun.star.task import ErrorCodeIOException, XJob, XStatusIndicator
from com.sun.star.util import DateTime as UnoDateTime

MACRO_NEVER_EXECUTE = 0
UPDATE_DOC_NO_UPDATE = 0
# How long a part loaded ahead waits for where it starts before it is laid out meanwhile: Node
# answers at once when it knows.
HOLD_GRACE_S = 0.05
# DOCX read by a name not beginning with "MS Word" (src/office/filters.ts DOCX_IMPORT_FILTER).
DOCX_IMPORT_FILTER = "Office Open XML Text"
# The converter's implementation name inside the office.
IN_OFFICE = "org.docsmith.office.InOffice"
# How long the converter inside the office tries to reach Node's socket.
DIRECT_CONNECT_S = 10


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def named(name, value):
    n = NamedValue()
    n.Name = name
    n.Value = value
    return n


def props(mapping):
    return tuple(prop(k, v) for k, v in mapping.items())


class Output:
    """Lines to Node: answers from the main thread, page reports from the office's callback thread."""

    def __init__(self, stream):
        self.stream = stream
        self.lock = threading.Lock()

    def line(self, obj):
        with self.lock:
            self.stream.write(json.dumps(obj) + "\n")
            self.stream.flush()


class Words:
    """Node's words about a held part, read from stdin."""

    def wait(self, seconds):
        return bool(select.select([sys.stdin], [], [], seconds)[0])

    def read(self):
        return sys.stdin.readline()


class Relay(unohelper.Base, XJob):
    """What the converter inside the office asks of this process: a line written to Node, or Node's next word."""

    def __init__(self, output, words):
        self.output = output
        self.words = words

    def execute(self, args):
        ask = {a.Name: a.Value for a in args}
        if "line" in ask:
            self.output.line(json.loads(ask["line"]))
            return ""
        if "wait" in ask:
            return "yes" if self.words.wait(float(ask["wait"])) else ""
        return self.words.read()


class Relayed:
    """Output and words for the converter inside the office, through this process's `Relay`."""

    def __init__(self, relay):
        self.relay = relay

    def line(self, obj):
        self.relay.execute((named("line", json.dumps(obj)),))

    def wait(self, seconds):
        return bool(self.relay.execute((named("wait", str(seconds)),)))

    def read(self):
        return self.relay.execute((named("read", ""),))


class Direct:
    """Node's socket, inside the office: jobs and words read from it, answers and reports written to it."""

    def __init__(self, path, timeout_s):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        self.sock.connect(path)
        self.sock.settimeout(None)
        self.buffer = b""
        self.lock = threading.Lock()

    def line(self, obj):
        with self.lock:
            self.sock.sendall((json.dumps(obj) + "\n").encode("utf-8"))

    def wait(self, seconds):
        return bool(self.buffer) or bool(select.select([self.sock], [], [], seconds)[0])

    def read(self):
        """The next line, or "" once Node has closed the socket."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return ""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode("utf-8") + "\n"

    def serve(self, bridge):
        """Jobs until Node closes the socket (or the office stops): each answered, then its documents closed."""
        try:
            while True:
                line = self.read()
                if not line:
                    break
                line = line.strip()
                if not line:
                    continue
                answer = answered(line, lambda job: run(bridge, job))
                self.line(answer)
                if answer.get("error") == "office_gone":
                    # Closing the socket tells Node to replace this office.
                    break
                bridge.close_documents()
        except Exception:
            pass
        finally:
            try:
                self.sock.close()
            except Exception:
                pass


class PageReport(unohelper.Base, XStatusIndicator):
    """The export's status indicator: the office calls it once per page it writes."""

    def __init__(self, output, job_id):
        self.output = output
        self.job_id = job_id
        self.total = 0
        self.sent = 0.0

    def report(self, done, last=False):
        now = time.monotonic()
        if self.total > 0 and (last or now - self.sent >= 0.25):
            self.sent = now
            self.output.line({"id": self.job_id, "pages": {"done": min(done, self.total), "total": self.total}})

    def start(self, text, total):
        self.total = total
        self.report(0)

    def setValue(self, value):
        # The value is the page about to be written: the pages before it are done.
        self.report(value)

    def end(self):
        self.report(self.total, last=True)

    def setText(self, text):
        pass

    def reset(self):
        pass


def connect(pipe_name, timeout_s):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe_name)
        except (NoConnectException, DisposedException):
            # A starting office can accept the pipe and drop the bridge before it is ready.
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def uno_date(text):
    # "2024-05-06T07:08:09Z" (Node sends UTC ISO strings)
    d = UnoDateTime()
    d.Year, d.Month, d.Day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    d.Hours, d.Minutes, d.Seconds = int(text[11:13]), int(text[14:16]), int(text[17:19])
    d.IsUTC = True
    return d


def filter_data(mapping):
    values = []
    for key, value in mapping.items():
        values.append(prop(key, value))
    return uno.Any("[]com.sun.star.beans.PropertyValue", tuple(values))


class Bridge:
    def __init__(self, ctx, output, words):
        self.ctx = ctx
        self.output = output
        self.words = words
        smgr = ctx.ServiceManager
        self.smgr = smgr
        self.desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        self.dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
        # Documents to close once the answer is out (closing takes 2-3 ms the caller need not wait
        # for), each with the frame it was loaded into, if any.
        self.to_close = []
        # An empty frame kept for the next document: making one is about a quarter of loading a
        # small document.
        self.frame = None

    def take_frame(self):
        frame, self.frame = self.frame, None
        if frame is None:
            creator = self.smgr.createInstanceWithContext("com.sun.star.frame.TaskCreator", self.ctx)
            frame = creator.createInstanceWithArguments((NamedValue("MakeVisible", False),))
            # A hidden frame shows no toolbars, yet its layout manager builds them on every load.
            frame.setPropertyValue("LayoutManager", None)
        return frame

    def convert(self, job):
        url = uno.systemPathToFileUrl(job["input"])
        load = {
            "Hidden": True,
            "ReadOnly": False,
            "MacroExecutionMode": MACRO_NEVER_EXECUTE,
            "UpdateDocMode": UPDATE_DOC_NO_UPDATE,
            "Silent": True,
        }
        if job.get("inputFilter"):
            load["FilterName"] = job["inputFilter"]
        if job.get("inputPassword"):
            load["Password"] = job["inputPassword"]
        spec = job.get("tableBreak") or {}
        # A part made ahead is loaded without a view: the office lays a document out as soon as it
        # has a view, and this one is laid out only once it knows where it starts.
        held = bool(spec.get("hold"))
        # Text output needs no layout (LibreOffice's layout of a long table grows much faster than
        # its rows: 4,000 rows to text took 5.8 s with it, 0.9 s without): laid out only if the body
        # shows page numbers, or for the test stamp.
        text_only = bool(job.get("textOnly")) and not job.get("watermark") and not job.get("sectionPages")
        try:
            # A document only stored again in a format that needs no layout (a long table's prototype
            # to ODT) is not laid out either.
            if held or job.get("viewless") or text_only:
                frame = None
                doc = self.smgr.createInstanceWithContext("com.sun.star.text.TextDocument", self.ctx)
                doc.load(props(dict(load, URL=url, FilterName=job.get("inputFilter") or DOCX_IMPORT_FILTER)))
            else:
                frame, doc = self.load_in_frame(url, load)
        except ErrorCodeIOException as e:
            return fail("load_failed", "the office could not load the document (error code %s)" % e.ErrCode)
        except Exception as e:  # IllegalArgumentException, IOException, ...
            if office_gone(e):
                raise
            text = str(e)
            if "password" in text.lower():
                return fail("password", "the document needs a password")
            return fail("load_failed", "the office could not load the document: %s" % (text or type(e).__name__))
        if doc is None:
            return fail("load_failed", "the office could not load the document")
        if job.get("pages"):
            # Read; what follows is layout, of which the office reports nothing, then the pages written.
            self.output.line({"id": job.get("id"), "loaded": True})
        try:
            if job.get("measure") == "sectionPages":
                # Each section's page count, in the answer (the bridge writes no file): for stored results in DOCX.
                return {"ok": True, "sectionPages": [length for _, length in section_runs(doc)]}
            table = long_table(doc, spec["bookmark"]) if spec else None
            skipped = {"rows": 0, "pages": 0, "kept": False}
            if held:
                go = self.hold(doc, job.get("id")) if table is not None else None
                if go is None:
                    return {"ok": True, "dropped": True}
                skipped = start_part(doc, table, int(spec["headerRows"]), go)
                if doc.getCurrentController() is None:
                    self.show(doc)
            laid_out = not text_only
            if text_only and body_shows_pages(doc):
                self.show(doc)
                # The whole layout now, not on the office's idle time: the text reads its fields' results.
                doc.getCurrentController().PageCount
                laid_out = True
            self.prepare(doc, job)
            answer = {"ok": True}
            if job.get("textOnly"):
                answer["laidOut"] = laid_out
            data = dict(job.get("filterData") or {})
            if spec:
                found = table_break(doc, table, spec, skipped)
                answer["tableBreak"] = found
                if skipped["kept"]:
                    answer["leftOut"] = skipped["pages"]
                if found is None:
                    return answer
                if found["keep"] < found["pages"] or skipped["pages"]:
                    data["PageRange"] = "%d-%d" % (skipped["pages"] + 1, skipped["pages"] + found["keep"])
                if found["keep"] < found["pages"]:
                    # Said before the export: the part after this one may go on meanwhile.
                    self.output.line({"id": job.get("id"), "broke": found})
            store = {"FilterName": job["filter"], "Overwrite": True}
            if job.get("pages"):
                store["StatusIndicator"] = PageReport(self.output, job.get("id"))
            if data:
                store["FilterData"] = filter_data(data)
            if job.get("filterOptions"):
                store["FilterOptions"] = job["filterOptions"]
            if job.get("password"):
                if job.get("ooxml"):
                    # OOXML export encrypts from EncryptionData, not from Password; this office
                    # writes the Standard (AES-128) scheme, which Word and LibreOffice open.
                    store["EncryptionData"] = uno.Any("[]com.sun.star.beans.NamedValue", (
                        named("OOXPassword", job["password"]), named("CryptoType", "Standard")))
                else:
                    store["Password"] = job["password"]
            try:
                doc.storeToURL(uno.systemPathToFileUrl(job["output"]), props(store))
            except Exception as e:
                if office_gone(e):
                    raise
                return fail("export_failed", "the office could not write the %s output: %s" % (job["filter"], str(e) or type(e).__name__))
            return answer
        finally:
            self.to_close.append((doc, frame))

    def load_in_frame(self, url, load):
        frame = self.take_frame()
        doc = None
        try:
            doc = frame.loadComponentFromURL(url, "_self", 0, props(load))
        finally:
            if doc is None:
                # A frame whose load failed is not trusted with the next document.
                self.to_close.append((None, frame))
        return frame, doc

    def show(self, doc):
        """Gives a document loaded without a view its (hidden) view, which lays it out."""
        self.desktop.loadComponentFromURL("private:object", "_blank", 0, props({"Model": doc, "Hidden": True}))

    def hold(self, doc, job_id):
        """Says the part is loaded and waits for Node's word: where the part truly starts, or None to
        drop it. A word that comes at once (the part before has broken already) is heeded before any
        layout; otherwise the part is laid out meanwhile, and dropping rows later lays out again only
        what follows them."""
        self.output.line({"id": job_id, "held": True})
        if not self.words.wait(HOLD_GRACE_S):
            self.show(doc)
            doc.getCurrentController().PageCount
        line = self.words.read()
        if not line:
            raise EOFError("the caller went away")
        word = json.loads(line)
        go = word.get("go") if word.get("id") == job_id else None
        return go if isinstance(go, dict) else None

    def close_documents(self):
        while self.to_close:
            doc, frame = self.to_close.pop()
            if doc is None:
                # An empty frame whose load failed.
                closing = frame
            elif frame is not None and self.frame is None and self.let_go(frame):
                # The frame let go of its document: closing that leaves the frame empty for the next.
                self.frame = frame
                closing = doc
            else:
                # Closing a document closes its frame.
                closing = doc
            try:
                closing.close(True)
            except Exception as e:
                if office_gone(e):
                    raise
                try:
                    closing.dispose()
                except Exception:
                    pass

    def let_go(self, frame):
        try:
            return bool(frame.setComponent(None, None))
        except Exception as e:
            if office_gone(e):
                raise
            return False

    def prepare(self, doc, job):
        properties = job.get("properties") or {}
        if properties and hasattr(doc, "getDocumentProperties"):
            dp = doc.getDocumentProperties()
            for key in ("Author", "Title", "Subject", "Generator"):
                if key in properties:
                    setattr(dp, key, properties[key])
            if "CreationDate" in properties:
                dp.CreationDate = uno_date(properties["CreationDate"])
            if "ModificationDate" in properties:
                dp.ModificationDate = uno_date(properties["ModificationDate"])
        if job.get("titleFallback") and hasattr(doc, "getDocumentProperties"):
            dp = doc.getDocumentProperties()
            if not dp.Title:
                dp.Title = job["titleFallback"]
        if job.get("refreshFields", True) and hasattr(doc, "getTextFields"):
            try:
                doc.getTextFields().refresh()
            except Exception:
                pass
        if job.get("sectionPages"):
            # Set after any refresh, which would put back the stored results.
            fill_section_pages(doc)
        if job.get("watermark"):
            frame = doc.getCurrentController().getFrame()
            self.dispatcher.executeDispatch(frame, ".uno:Watermark", "", 0, props({
                "Text": job["watermark"], "Font": "Liberation Sans", "Angle": 45, "Transparency": 50, "Color": 0xC00000,
            }))


# Fields whose result comes from the layout: page numbers and counts, references (which may name a
# page), document statistics.
LAYOUT_FIELDS = tuple("com.sun.star.text.textfield." + name for name in (
    "PageNumber", "PageCount", "GetReference", "WordCount", "CharacterCount", "ParagraphCount",
    "TableCount", "GraphicObjectCount", "EmbeddedObjectCount"))


def body_shows_pages(doc):
    """Whether a field outside the headers and footers (which text output leaves out) takes its
    result from the layout."""
    fields = doc.getTextFields().createEnumeration()
    while fields.hasMoreElements():
        field = fields.nextElement()
        if any(field.supportsService(name) for name in LAYOUT_FIELDS):
            try:
                if field.getAnchor().getText().getImplementationName() == "SwXHeadFootText":
                    continue
            except Exception as e:
                if office_gone(e):
                    raise
            return True
    return False


def long_table(doc, bookmark):
    try:
        return doc.getBookmarks().getByName(bookmark).getAnchor().TextTable
    except Exception:
        return None


class LaidTable:
    """A long table's part as the office laid it out: on which page its rows begin and end (the view
    cursor lays out what it is asked about)."""

    def __init__(self, doc, table, header):
        self.doc = doc
        self.table = table
        self.header = header
        self.rows = table.getRows().getCount() - header
        self.columns = table.getColumns().getCount()
        self.cursor = doc.getCurrentController().getViewCursor()

    def pages(self):
        return self.doc.getCurrentController().PageCount

    def page_of(self, text_range):
        self.cursor.gotoRange(text_range, False)
        return self.cursor.getPage()

    def starts(self, i):
        return self.page_of(self.table.getCellByPosition(0, self.header + i).getText().getStart())

    def ends(self, i):
        last = 0
        for column in range(self.columns):
            try:
                cell = self.table.getCellByPosition(column, self.header + i)
            except Exception:
                break  # a row with fewer (spanned) cells
            last = max(last, self.page_of(cell.getText().getEnd()))
        return last

    def before_ends(self, i, page):
        """The row before row i starts and ends before the page."""
        return self.starts(i - 1) < page and self.ends(i - 1) < page

    def begins(self, i, page):
        """Row i is the first on the page, whole, and the row before ends earlier."""
        return 0 < i < self.rows and self.starts(i) == page and self.before_ends(i, page)

    def begun_by(self, i):
        """The page row i begins as its first row, whole (the row before ends earlier), or None."""
        if not 0 < i < self.rows:
            return None
        page = self.starts(i)
        return page if self.before_ends(i, page) else None

    def break_on(self, page):
        """The row that begins the page, found by searching the rows, or None."""
        low, high = 0, self.rows  # the first row starting on this page or later
        while low < high:
            middle = (low + high) // 2
            if self.starts(middle) >= page:
                high = middle
            else:
                low = middle + 1
        return low if low < self.rows and self.begins(low, page) else None

    def first_on(self, page):
        """The row whose cell holds the page's first text (a row that begins on it, or one split onto
        it), found by jumping there: a few calls where the search takes dozens. None if not a row."""
        cursor = self.cursor
        try:
            cursor.jumpToPage(page)
            cursor.jumpToStartOfPage()
            cell = cursor.Cell
            if cell is None or cursor.TextTable is None or cursor.TextTable.Name != self.table.Name:
                return None
            row = re.fullmatch(r"[A-Z]+([0-9]+)", cell.CellName)
            return int(row.group(1)) - 1 - self.header if row else None
        except Exception as e:
            if office_gone(e):
                raise
            return None

    def first_row_on(self, page):
        """The quick way: the row holding the page's first text and the page that row starts on,
        or (None, None)."""
        first = self.first_on(page)
        if first is None or not 0 < first < self.rows:
            return None, None
        return first, self.starts(first)

    def row_beginning(self, page):
        """The row that begins the page whole, or None: the quick way first, then the search."""
        first, begun = self.first_row_on(page)
        if begun == page:
            # The row holding the page's first text starts on it: the row before has no text on it.
            return first
        if begun is not None and begun < page:
            return None  # the page opens with the rest of a row torn over the break
        return self.break_on(page)  # checks both rows the long way


def start_part(doc, table, header, go):
    """Where a part laid out ahead truly starts: `trim` rows in, numbered `page`. Pages that begin
    with the same row lay out alike from there on, so when the part's own layout has a page begun
    by that row, the pages before it are only left out of the export and the part renumbered if
    need be (its layout kept). Otherwise the rows before go (before any layout: cheap; after it,
    what follows them is laid out again). Returns the rows and pages left out, and whether a layout
    made ahead was kept."""
    trim = int(go.get("trim", 0))
    page = int(go["page"])
    if doc.getCurrentController() is not None:
        laid = LaidTable(doc, table, header)
        begun = laid.begun_by(trim) if trim > 0 else 1
        if begun is not None and page - begun + 1 >= 1:
            kept = {"rows": trim, "pages": begun - 1, "kept": True}
            if table.PageNumberOffset == page - begun + 1:
                return kept  # begun where Node foresaw a page would begin, with its number
            # Numbers may change which pages are left and right, and with them the layout: checked again.
            unseen(doc, lambda: setattr(table, "PageNumberOffset", page - begun + 1))
            if trim == 0 or laid.begun_by(trim) == begun:
                return kept

    def cut():
        if trim > 0:
            table.getRows().removeByIndex(header, trim)
        if table.PageNumberOffset != page:
            table.PageNumberOffset = page
    unseen(doc, cut)
    return {"rows": 0, "pages": 0, "kept": False}


def unseen(doc, change):
    """Makes a change with the document's views locked: they lay out again once, after it (a trim
    of a laid-out part 199 -> 129 ms, a renumbering 67 -> 16 ms, medians of 14)."""
    doc.lockControllers()
    try:
        change()
    finally:
        doc.unlockControllers()


def table_break(doc, table, spec, skipped):
    """Where the next part of a long table starts: the latest page, after the first, whose first row
    begins on it while the row before ends on an earlier page (a row split over the break would be
    torn). Its rows go to the next part; the pages before it are kept. The last part keeps every
    page. Rows and pages are counted from the part's true start, after those `skipped`; with them
    `rowsOnPage`, the rows of the last page kept when it begins with a whole row (pages of like rows
    hold as many: where the next parts' pages will begin). None when the table is not found or no
    page qualifies."""
    if table is None:
        return None
    laid = LaidTable(doc, table, int(spec["headerRows"]))
    pages = laid.pages() - skipped["pages"]
    rows = laid.rows - skipped["rows"]
    if spec.get("last"):
        return {"pages": pages, "keep": pages, "restart": rows}
    if rows < 2:
        return None
    for page in range(laid.pages(), skipped["pages"] + 1, -1):
        restart = laid.row_beginning(page)
        if restart is None or restart <= skipped["rows"]:
            continue
        found = {"pages": pages, "keep": page - 1 - skipped["pages"], "restart": restart - skipped["rows"]}
        if page - 1 > skipped["pages"] + 1:
            # Asked the quick way only: a page whose first row is torn holds no like rows anyway.
            before, begun = laid.first_row_on(page - 1)
            if begun == page - 1 and skipped["rows"] < before < restart:
                found["rowsOnPage"] = restart - before
        return found
    return None


HEADERS_AND_FOOTERS = ("HeaderText", "HeaderTextLeft", "HeaderTextFirst", "FooterText", "FooterTextLeft", "FooterTextFirst")


def fill_section_pages(doc):
    """Word's SECTIONPAGES (a merged record's "page X of Y") is a field this office keeps as the
    stored text. A section's page count goes into the headers and footers of its page styles (one,
    or two with a different first page)."""
    if not hasattr(doc, "getStyleFamilies") or not hasattr(doc, "getCurrentController"):
        return
    family = doc.getStyleFamilies().getByName("PageStyles")
    styles = [family.getByIndex(i) for i in range(family.getCount())]
    boxes = anchored_texts(doc)
    styles = [style for style in styles if style.isInUse() and header_texts(style, boxes, section_pages_results)]
    if not styles:
        return
    lengths = {}  # style -> page counts of the sections using it
    for names, length in section_runs(doc):
        for name in names:
            lengths.setdefault(name, set()).add(length)
    for style in styles:
        counts = lengths.get(style.getName(), set())
        if len(counts) != 1:
            continue  # a style used by sections of different lengths: no one right number
        value = str(counts.pop())

        def fill(text):
            # Found afresh for each text: a shared header is the same text under several names.
            for field in section_pages_results(text):
                field[0].setString(value)
                for rest in field[1:]:
                    rest.setString("")
            return False
        header_texts(style, boxes, fill)


def section_runs(doc):
    """The document's sections in order: [page style names, pages]. Every section starting on a new
    page has a style of its own here; one with a different first page (w:titlePg) has two, the
    first-page style and the style it is followed by."""
    family = doc.getStyleFamilies().getByName("PageStyles")
    follows = {}

    def follow(name):
        if name not in follows:
            try:
                follows[name] = family.getByName(name).FollowStyle or name
            except Exception:
                follows[name] = name
        return follows[name]

    sections = []
    previous = None
    for name, length in page_runs(doc):
        if previous is not None and previous != name and follow(previous) == name:
            sections[-1][0].append(name)
            sections[-1][1] += length
        else:
            sections.append([[name], length])
            # Pages after the first that no cursor reaches (they start inside a table) have the follow style.
            if length > 1 and follow(name) != name:
                sections[-1][0].append(follow(name))
        previous = name
    return sections


def page_runs(doc):
    """The document's runs of pages of one page style, in order: [style name, pages]."""
    controller = doc.getCurrentController()
    cursor = controller.getViewCursor()
    runs = []
    previous = None
    for page in range(1, controller.PageCount + 1):
        # A page the office inserts to keep odd and even sides (never exported) takes no cursor.
        if not cursor.jumpToPage(page):
            previous = None
            continue
        if cursor.getPage() != page:
            # A page that starts inside a table: the cursor lands before it; it continues the run.
            if runs and previous is not None:
                runs[-1][1] += 1
            continue
        name = cursor.PageStyleName
        if name == previous:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
        previous = name
    return runs


def header_texts(style, boxes, visit):
    """Calls visit on each header and footer text of a page style, and on the text boxes and frames
    anchored in them, until one answers true."""
    for name in HEADERS_AND_FOOTERS:
        try:
            text = style.getPropertyValue(name)
        except Exception:
            continue
        if text is None:
            continue
        if visit(text):
            return True
        # UNO compares objects by identity: a box belongs to this header if anchored in its text.
        for anchor, box in boxes:
            if anchor == text and visit(box):
                return True
    return False


def anchored_texts(doc):
    """[anchor's text, text] of every text frame and shape text box (a footer's address box)."""
    found = []
    try:
        page = doc.getDrawPage()
        count = page.getCount()
    except Exception:
        return found
    for i in range(count):
        try:
            shape = page.getByIndex(i)
            if shape.supportsService("com.sun.star.text.TextFrame"):
                text = shape.getText()
            elif shape.getPropertySetInfo().hasPropertyByName("TextBox") and shape.TextBox:
                text = shape.TextBoxContent
            else:
                continue
            found.append((shape.getAnchor().getText(), text))
        except Exception:
            continue
    return found


def section_pages_results(text):
    """The text portions of each SECTIONPAGES field's result in one header or footer."""
    fields = []
    paragraphs = text.createEnumeration()
    while paragraphs.hasMoreElements():
        paragraph = paragraphs.nextElement()
        if not paragraph.supportsService("com.sun.star.text.Paragraph"):
            continue
        inside = result = False
        portions = paragraph.createEnumeration()
        while portions.hasMoreElements():
            portion = portions.nextElement()
            kind = portion.TextPortionType
            if kind == "TextFieldStart":
                code = ""
                try:
                    code = portion.Bookmark.getParameters().getByName("vnd.oasis.opendocument.field.code")
                except Exception:
                    pass
                inside, result = code.upper().split()[:1] == ["SECTIONPAGES"], False
            elif kind == "TextFieldSeparator" and inside:
                result = True
                fields.append([])
            elif kind == "TextFieldEnd":
                inside = result = False
            elif kind == "Text" and result:
                fields[-1].append(portion)
    return [portions for portions in fields if portions]


def office_gone(error):
    return "Disposed" in type(error).__name__ or "disposed" in str(error)


def fail(code, message):
    return {"ok": False, "error": code, "message": message}


def failure(error):
    """An exception as an answer: the office gone, or the job at fault."""
    if office_gone(error):
        return fail("office_gone", str(error))
    return fail("bad_job", "%s: %s" % (type(error).__name__, error))


def answered(line, work):
    """The answer to one job's line: what `work` makes of the job, or its failure, with the job's id and its time."""
    started = time.perf_counter()
    job_id = None
    try:
        job = json.loads(line)
        job_id = job.get("id")
        answer = work(job)
    except Exception as e:
        answer = failure(e)
    answer["id"] = job_id
    answer["ms"] = round((time.perf_counter() - started) * 1000, 2)
    return answer


def run(bridge, job):
    op = job.get("op")
    if op == "ping":
        return {"ok": True}
    if op == "convert":
        return bridge.convert(job)
    return fail("bad_job", "unknown op %r" % op)


class InOffice(unohelper.Base, XJob):
    """The converter inside the office process, loaded by the office's own Python."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.bridge = None

    def execute(self, args):
        ask = {a.Name: a.Value for a in args}
        try:
            if "relay" in ask:
                relayed = Relayed(ask["relay"])
                self.bridge = Bridge(self.ctx, relayed, relayed)
                return json.dumps({"ok": True})
            if "direct" in ask:
                direct = Direct(ask["direct"], DIRECT_CONNECT_S)
                threading.Thread(target=direct.serve, args=(Bridge(self.ctx, direct, direct),), daemon=True).start()
                return json.dumps({"ok": True})
            if "close" in ask:
                self.bridge.close_documents()
                return json.dumps({"ok": True})
            return json.dumps(run(self.bridge, json.loads(ask["job"])))
        except Exception as e:
            return json.dumps(failure(e))


g_ImplementationHelper = unohelper.ImplementationHelper()
g_ImplementationHelper.addImplementation(InOffice, IN_OFFICE, (IN_OFFICE,))


def in_office(ctx, relay):
    """The converter inside the office, or None and why the office's Python could not load this file."""
    try:
        loader = ctx.ServiceManager.createInstanceWithContext("com.sun.star.loader.Python", ctx)
        factory = loader.activate(IN_OFFICE, "", uno.systemPathToFileUrl(os.path.abspath(__file__)), None)
        converter = factory.createInstanceWithContext(ctx)
        if json.loads(converter.execute((named("relay", relay),))).get("ok"):
            return converter, None
        return None, "it did not start"
    except Exception as e:
        if office_gone(e):
            raise
        return None, str(e) or type(e).__name__


def main():
    pipe_name = sys.argv[1]
    ctx = connect(pipe_name, float(os.environ.get("DOCSMITH_BRIDGE_CONNECT_S", "60")))
    out = Output(sys.stdout)
    words = Words()
    if os.environ.get("DOCSMITH_BRIDGE_REMOTE"):
        converter, why = None, "asked to call over the pipe"
    else:
        converter, why = in_office(ctx, Relay(out, words))
    bridge = None if converter else Bridge(ctx, out, words)
    direct_path = os.environ.get("DOCSMITH_BRIDGE_DIRECT")
    if converter and direct_path:
        try:
            direct = json.loads(converter.execute((named("direct", direct_path),))).get("ok") is True
        except Exception as e:
            if office_gone(e):
                raise
            direct = False
        if direct:
            out.line({"ready": True, "inOffice": True, "direct": True})
            # Node speaks to the office itself now; this process stays until Node lets it go.
            for _ in sys.stdin:
                pass
            return
    out.line({"ready": True, "inOffice": True} if converter else {"ready": True, "inOffice": False, "why": why})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        answer = answered(line, lambda job: json.loads(converter.execute((named("job", line),))) if converter else run(bridge, job))
        out.line(answer)
        if answer.get("error") == "office_gone":
            # The office died under us; say so and stop, Node replaces the pair.
            sys.exit(3)
        try:
            closed = json.loads(converter.execute((named("close", ""),))).get("ok") if converter else bridge.close_documents() is None
        except Exception:
            closed = False
        if not closed:
            # The office died while closing: stop, Node replaces the pair.
            sys.exit(3)


if __name__ == "__main__":
    main()
