"""Headless Firefox behind the part of selenium's WebDriver API that inspector-browser-test.py uses.

Debian packages Firefox (firefox-esr) but not geckodriver, the bridge selenium needs, so this
drives Firefox through its own remote protocol, Marionette, with Mozilla's `marionette_driver`
(from PyPI), listening on the loopback interface only. Its element and key API follows WebDriver,
so the checks run unchanged; what differs is here:

- `get_log("browser")` is the page's script errors from Firefox's console service, uncaught
  exceptions and content security policy violations among them, as selenium's SEVERE entries.
- `get_log("performance")` is empty: Firefox keeps no request log to read, so the requests check
  rests on the page's resource timing entries and on the policy violations above.
"""
import tempfile

from marionette_driver import errors
from marionette_driver.marionette import Alert, Marionette, WebElement
from selenium.common.exceptions import NoAlertPresentException, NoSuchElementException

MARIONETTE_PORT = 2828

# Errors (not warnings: flag 1) logged for pages opened from files or from `about:`.
PAGE_ERRORS = """
return Services.console.getMessageArray()
    .filter(m => m instanceof Ci.nsIScriptError && !(m.flags & Ci.nsIScriptError.warningFlag)
        && (m.sourceName.startsWith('file:') || m.sourceName === '' ))
    .map(m => m.errorMessage + ' (' + m.sourceName + ':' + m.lineNumber + ')')
"""


def _find(root, by, value):
    """The first element below `root` (the page or an element); selenium's error when none."""
    try:
        return _Element(root.find_element(by, value))
    except errors.NoSuchElementException as error:
        raise NoSuchElementException(str(error)) from error


def _find_all(root, by, value):
    return [_Element(element) for element in root.find_elements(by, value)]


class _Element:
    def __init__(self, element):
        self._element = element

    @property
    def text(self):
        return self._element.text

    def click(self):
        self._element.click()

    def clear(self):
        self._element.clear()

    def send_keys(self, *keys):
        self._element.send_keys(*keys)

    def find_element(self, by, value):
        return _find(self._element, by, value)

    def find_elements(self, by, value):
        return _find_all(self._element, by, value)


class _SwitchTo:
    def __init__(self, client):
        self._client = client

    @property
    def alert(self):
        """The open alert; raises selenium's NoAlertPresentException when there is none."""
        alert = Alert(self._client)
        try:
            alert.text
        except errors.NoAlertPresentException as error:
            raise NoAlertPresentException(str(error)) from error
        return alert


class FirefoxDriver:
    """Headless Firefox ESR with a 1400 × 900 window, like the Chromium the test drives."""

    def __init__(self, binary="/usr/bin/firefox-esr"):
        self._profile = tempfile.mkdtemp(prefix="inspector-firefox-")
        self._client = Marionette(
            bin=binary, headless=True, host="127.0.0.1", port=MARIONETTE_PORT,
            gecko_log=f"{self._profile}/gecko.log")
        self._client.start_session()
        self._client.set_window_rect(width=1400, height=900)
        self.switch_to = _SwitchTo(self._client)
        self._seen_errors = 0

    def get(self, url):
        self._client.navigate(url)

    def execute_script(self, script, *args):
        return self._wrapped(self._client.execute_script(script, script_args=list(args)))

    def execute_async_script(self, script, *args):
        return self._wrapped(self._client.execute_async_script(script, script_args=list(args)))

    def find_element(self, by, value):
        return _find(self._client, by, value)

    def find_elements(self, by, value):
        return _find_all(self._client, by, value)

    def get_log(self, kind):
        if kind != "browser":
            return []
        with self._client.using_context("chrome"):
            messages = self._client.execute_script(PAGE_ERRORS)
        new, self._seen_errors = messages[self._seen_errors:], len(messages)
        return [{"level": "SEVERE", "message": message} for message in new]

    def save_screenshot(self, path):
        with open(path, "wb") as file:
            file.write(self._client.screenshot(format="binary"))

    def quit(self):
        try:
            self._client.delete_session()
        finally:
            self._client.cleanup()

    @staticmethod
    def _wrapped(value):
        if isinstance(value, WebElement):
            return _Element(value)
        if isinstance(value, list):
            return [FirefoxDriver._wrapped(item) for item in value]
        return value
