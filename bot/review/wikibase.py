"""The wiki `refbot apply` writes to, through pywikibot: a :class:`bot.review.applying.Wiki`.

pywikibot reads its configuration once, at import, from the directory ``PYWIKIBOT_DIR`` names. refbot gives it a
directory of its own (``[apply] pywikibot_dir``), writing there a ``user-config.py`` from refbot's options (the
account, the user agent with the operator's contact, ``put_throttle``, ``maxlag``, retries) and, for a wiki other
than Wikidata or test.wikidata, a family file for its API URL. The password is a BotPassword: from the
environment (``REFBOT_APPLY_PASSWORD``, never written to a file) or from pywikibot's own password file
(``[apply] password_file``, lines like ``('Example', BotPassword('refbot', '…'))``); pywikibot never prompts.

Each edit is one ``wbsetreference`` built here rather than with ``Claim.addSources``, for what addSources cannot
send: ``assert=bot`` when the account has the bot flag (an edit fails if the flag is gone, instead of flooding
recent changes), the base revision refbot read the statement at, and the snaks' order. It goes through
pywikibot's request machinery all the same: its throttle between writes, ``maxlag`` and its waits, its retries,
its CSRF token, its login session, and its simulate mode.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bot import __version__
from bot.errors import ConfigError, InternalError, WriteError
from bot.options import Options
from bot.review.applying import Edit, Sent, block_reason

# The API errors after which no other edit of this apply can succeed.
# (A protected item refuses with permissiondenied or protectedpage: that statement fails, the others go on.)
FATAL_CODES = {"blocked", "autoblocked", "assertuserfailed", "assertbotfailed", "readonly",
               "mwoauth-invalid-authorization", "login"}
KNOWN_SITES = {"www.wikidata.org": ("wikidata", "wikidata"), "test.wikidata.org": ("wikidata", "test")}


@dataclass(frozen=True)
class Account:
    """``Example@refbot`` (as Special:BotPasswords shows it) → user ``Example``, BotPassword ``refbot``."""

    user: str
    bot_name: str

    @classmethod
    def parse(cls, login: str) -> Account:
        user, _, bot_name = login.strip().partition("@")
        if not user or not bot_name:
            raise ConfigError(f"[apply] user {login!r} is not a BotPassword login name",
                              hint="set [apply] user to the name Special:BotPasswords shows, like Example@refbot")
        return cls(user, bot_name)


def site_of(api_url: str) -> tuple[str, str, str]:
    """(family, code, family file text or "") for a wiki's API URL."""
    parts = urlsplit(api_url)
    if parts.netloc in KNOWN_SITES and parts.path == "/w/api.php" and parts.scheme == "https":
        family, code = KNOWN_SITES[parts.netloc]
        return family, code, ""
    if not parts.netloc or not parts.path.endswith("/api.php"):
        raise ConfigError(f"{api_url!r} is not a MediaWiki API URL", hint="set [wikidata] api_url to …/w/api.php")
    script_path = parts.path[: -len("/api.php")]
    text = ("from pywikibot import family\n\n\n"
            "class Family(family.DefaultWikibaseFamily):\n"
            "    name = 'refbot'\n"
            f"    langs = {{'wikidata': {parts.netloc!r}}}\n\n"
            f"    def protocol(self, code):\n        return {parts.scheme!r}\n\n"
            f"    def scriptpath(self, code):\n        return {script_path!r}\n")
    return "refbot", "wikidata", text


PASSWORD_FILE_FIX = ("set [apply] password_file to pywikibot's password file, or remove it and export "
                     "REFBOT_APPLY_PASSWORD")
PASSWORD_LINE_FIX = ("write the line as ('Example', BotPassword('refbot', 'PASSWORD')) with your user name, the "
                     "BotPassword's name and its password")


def check_password_file(name: str) -> Path:
    """The BotPassword file ``[apply] password_file`` names, read as pywikibot reads it (each line a Python tuple
    literal, ``BotPassword(…)`` for the last member): ConfigError naming the file, the line and the fix, rather than
    a traceback from inside pywikibot's login. A line's text is never shown: it holds a password."""
    from ast import literal_eval

    path = Path(name).expanduser()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"[apply] password_file {path} does not exist", hint=PASSWORD_FILE_FIX) from None
    except UnicodeDecodeError:
        raise ConfigError(f"[apply] password_file {path} is not UTF-8", hint=PASSWORD_FILE_FIX) from None
    except OSError as error:
        raise ConfigError(f"cannot read [apply] password_file {path}: {error.strerror or error}",
                          hint=PASSWORD_FILE_FIX) from None
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        bot_password = "BotPassword" in line
        try:
            entry = literal_eval(line.replace("BotPassword", "")) if len(line) <= 250 else None
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            entry = None
        last = entry[-1] if isinstance(entry, tuple) and entry else None
        well_formed = (isinstance(entry, tuple) and 2 <= len(entry) <= 4 and line.count(", ") <= 4
                       and all(isinstance(part, str) for part in entry[:-1])
                       and (isinstance(last, tuple) and len(last) == 2 and all(isinstance(p, str) for p in last)
                            if bot_password else isinstance(last, str)))
        if not well_formed:
            raise ConfigError(f"[apply] password_file {path}, line {number}: not a password entry pywikibot can read",
                              hint=PASSWORD_LINE_FIX)
    return path


def user_config(options: Options, account: Account | None, family: str, code: str) -> str:
    contact = options.contact or "no contact configured"
    lines = [f"family = {family!r}", f"mylang = {code!r}",
             f"user_agent_description = {f'refbot/{__version__} ({contact})'!r}",
             f"put_throttle = {max(0, round(options.apply.edit_delay))}", "minthrottle = 0",
             f"maxthrottle = {max(60, round(options.apply.edit_delay))}",
             f"write_maxlag = {options.apply.maxlag}", f"read_maxlag = {options.apply.maxlag}",
             f"max_retries = {options.apply.retries}", f"retry_wait = {max(1, round(options.apply.retry_wait))}",
             "retry_max = 120", "noisysleep = 60.0", "socket_timeout = (10, 60)"]
    if account is not None:
        lines.append(f"usernames[{family!r}][{code!r}] = {account.user!r}")
    if options.apply.password_file:
        lines.append(f"password_file = {str(Path(options.apply.password_file).expanduser().resolve())!r}")
    return "\n".join(lines) + "\n"


def _prepare_directory(options: Options, account: Account | None) -> tuple[str, str]:
    family, code, family_text = site_of(options.wikidata.api_url)
    # One directory per wiki and account: pywikibot's API cache keys do not name the host.
    name = hashlib.sha256(f"{options.wikidata.api_url}\n{account}".encode()).hexdigest()[:12]
    directory = options.apply.pywikibot_dir.expanduser() / name
    (directory / "families").mkdir(parents=True, exist_ok=True)
    (directory / "user-config.py").write_text(user_config(options, account, family, code), encoding="utf-8")
    if family_text:
        (directory / "families" / "refbot_family.py").write_text(family_text, encoding="utf-8")
    current = os.environ.get("PYWIKIBOT_DIR")
    if "pywikibot" in sys.modules and current != str(directory):
        raise InternalError("pywikibot was already loaded with another configuration in this process",
                            component="pywikibot", hint="run each apply in a process of its own")
    os.environ["PYWIKIBOT_DIR"] = str(directory)
    return family, code


def _import_pywikibot() -> Any:
    argv = sys.argv
    sys.argv = argv[:1]  # pywikibot reads -dir:, -config: and others from the command line at import
    try:
        import pywikibot
    except ImportError as error:
        raise InternalError(f"pywikibot cannot be imported: {error}", component="pywikibot",
                            hint="reinstall refbot (scripts/setup)") from None
    finally:
        sys.argv = argv
    return pywikibot


class PywikibotWiki:
    """Reads items and adds references through pywikibot. ``live=False``: pywikibot's simulate mode, no login;
    `apply` then sends no edit at all (it only prints them)."""

    def __init__(self, options: Options, *, live: bool) -> None:
        self.api_url = options.wikidata.api_url
        self.live = live
        self._account = account = Account.parse(options.apply.user) if options.apply.user else None
        if live and account is None:
            raise ConfigError("no account to write with", hint="set [apply] user to your BotPassword login name "
                              "(Example@refbot) and REFBOT_APPLY_PASSWORD, or [apply] password_file")
        if live and not options.apply.password and not options.apply.password_file:
            raise ConfigError(f"no BotPassword for {options.apply.user}",
                              hint="export REFBOT_APPLY_PASSWORD, or set [apply] password_file to pywikibot's "
                                   "password file")
        if live and options.apply.password_file:
            check_password_file(options.apply.password_file)
        family, code = _prepare_directory(options, account)
        self.pywikibot = pywikibot = _import_pywikibot()
        pywikibot.config.simulate = not live
        if account is not None:
            self._supply_password(account, options.apply.password)
        try:
            self.repo = pywikibot.Site(code, family)
        except pywikibot.exceptions.Error as error:
            raise WriteError(f"cannot reach the wiki at {self.api_url}: {error}", code="read", fatal=True) from None
        self.bot = False
        if live:
            self._login(account)

    # -- the account -----------------------------------------------------------------------------------------
    def _supply_password(self, account: Account, password: str) -> None:
        """pywikibot builds its login manager itself (again after a lost session): give it the BotPassword,
        and never let it ask on the terminal."""
        login = self.pywikibot.login
        base = login.ClientLoginManager
        if getattr(base, "refbot_account", None) is not None:
            base = base.__bases__[0]

        class BotPasswordLogin(base):  # type: ignore[misc, valid-type]
            refbot_account = account

            def __init__(self, password_: str | None = None, site: Any = None, user: str | None = None) -> None:
                try:
                    super().__init__(password=password_, site=site, user=user)
                except (ValueError, OSError) as error:  # pywikibot's reading of the password file (checked before)
                    raise ConfigError(f"pywikibot cannot read [apply] password_file: {error}",
                                      hint=PASSWORD_FILE_FIX) from None
                if self.username == account.user:
                    if password:
                        self.password, self.login_name = password, f"{account.user}@{account.bot_name}"
                    if not self.password:
                        raise WriteError(f"no BotPassword for {account.user} in the environment or the password "
                                         "file", code="login", fatal=True,
                                         hint="export REFBOT_APPLY_PASSWORD or fix [apply] password_file")

        login.ClientLoginManager = BotPasswordLogin

    def _login(self, account: Account | None) -> None:
        exceptions = self.pywikibot.exceptions
        try:
            self.repo.login()
        except exceptions.NoUsernameError as error:
            raise WriteError(f"login to {self.api_url} as {account.user if account else '?'} failed: {error}",
                             code="login", fatal=True,
                             hint="check [apply] user (Example@refbot) and the BotPassword; create a new one at "
                                  "Special:BotPasswords if it was revoked") from None
        except exceptions.Error as error:
            raise WriteError(f"login to {self.api_url} failed: {error}", code="login", fatal=True) from None
        if not self.repo.logged_in():
            raise WriteError(f"login to {self.api_url} as {account.user if account else '?'} did not take",
                             code="login", fatal=True, hint="check [apply] user and the BotPassword")
        rights = self.repo.userinfo.get("rights", [])
        if "edit" not in rights:
            raise WriteError(f"{self.repo.username()} may not edit {self.api_url}", code="permissiondenied",
                             fatal=True, hint="give the BotPassword the grant “Edit existing pages”")
        self.bot = "bot" in rights

    def _login_again(self) -> None:
        """Forget what pywikibot believes of the login and its tokens, and log in (a session the wiki ended)."""
        del self.repo.userinfo
        self.repo.tokens.clear()
        self._login(self._account)

    @property
    def account(self) -> str:
        name = self.repo.username() if self.live else ""
        return f"{name} ({'bot flag' if self.bot else 'no bot flag'})" if name else "(not logged in: simulate)"

    # -- reading and writing ---------------------------------------------------------------------------------
    def statement(self, item: str, guid: str) -> tuple[int, dict[str, Any] | None]:
        pywikibot = self.pywikibot
        exceptions = pywikibot.exceptions
        page = pywikibot.ItemPage(self.repo, item)
        try:
            page.get(force=True)
        except (exceptions.NoPageError, exceptions.IsRedirectPageError):
            return 0, None  # deleted or merged: the statement is not there any more
        except exceptions.Error as error:  # this item; the next may be read
            raise WriteError(f"cannot read {item} at {self.api_url}: {error}", code="read") from None
        except OSError as error:  # pywikibot's ConnectionError after its retries: the wiki is out of reach
            raise WriteError(f"cannot reach {self.api_url}: {error}", code="connection", fatal=True,
                             hint="check the network and [wikidata] api_url; the approved references are kept") \
                from None
        for claims in page.claims.values():
            for claim in claims:
                if claim.snak == guid:
                    return int(page.latest_revision_id), claim.toJSON()
        return int(page.latest_revision_id), None

    def blocked(self, user: str) -> str:
        if not user or "|" in user:
            return ""
        try:
            answers = list(self.repo.users([user]))
        except self.pywikibot.exceptions.Error as error:
            raise WriteError(f"cannot read whether {user} is blocked at {self.api_url}: {error}", code="read",
                             fatal=True, hint="try again later; the approved references are kept") from None
        except OSError as error:
            raise WriteError(f"cannot reach {self.api_url}: {error}", code="connection", fatal=True,
                             hint="check the network and [wikidata] api_url; the approved references are kept") \
                from None
        return block_reason(user, answers[0] if answers else None)

    def add_reference(self, edit: Edit) -> Sent:
        if not self.live:
            raise InternalError("an edit was sent in simulate mode", component="apply")
        exceptions = self.pywikibot.exceptions
        for attempt in (1, 2):
            parameters: dict[str, Any] = dict(edit.parameters())
            if self.bot:
                parameters["bot"] = True
            try:
                request = self.repo.simple_request(token=self.repo.tokens["csrf"], **parameters)
                request["assert"] = "bot" if self.bot else "user"
                data = request.submit()
            except KeyError as error:
                # The wiki forgot the session (an expired login): pywikibot logs in again while it fetches a new
                # token, then keeps the logged-out user it read on the way and finds no token for it.
                if attempt == 1:
                    self._login_again()
                    continue
                raise WriteError(f"the login to {self.api_url} was lost and could not be renewed: {error}",
                                 code="login", fatal=True, hint="run apply again; the approved references are kept") \
                    from None
            except exceptions.APIError as error:
                # After a lost session pywikibot logs in again but resends the old token once: try once more.
                if error.code == "badtoken" and attempt == 1:
                    continue
                raise _refused(error, edit) from None
            except exceptions.MaxlagTimeoutError as error:
                raise WriteError(f"{self.api_url} stayed lagged: {error}", code="maxlag", fatal=True,
                                 hint="try again later; the approved references are kept") from None
            except exceptions.Error as error:
                raise WriteError(f"the edit of {edit.statement} failed: {error}", code="api", fatal=True,
                                 hint="try again later; the approved references are kept") from None
            except OSError as error:
                raise WriteError(f"cannot reach {self.api_url}: {error}", code="connection", fatal=True,
                                 hint="the next apply reads the item to see whether the edit landed") from None
            return Sent.of(data)
        raise AssertionError("unreachable")


def _refused(error: Any, edit: Edit) -> WriteError:
    code = str(error.code)
    other = getattr(error, "other", {}) or {}
    filters = other.get("abusefilter") or {}
    messages = [m.get("name", "") for m in other.get("messages", []) if isinstance(m, dict)]
    if code.startswith("abusefilter") or any(name.startswith("abusefilter") for name in messages):
        described = filters.get("description") or ", ".join(messages)
        return WriteError(f"an abuse filter refused the edit of {edit.statement}: {described or error.info}",
                          code=code, hint="read the filter's description; the reference stays approved")
    if code == "editconflict":
        return WriteError(f"edit conflict on {edit.item}: it changed after revision {edit.base_revision}",
                          code=code, hint="the next apply reads the item again")
    fatal = code in FATAL_CODES
    hint = "the account is blocked: ask the blocking administrator" if code in ("blocked", "autoblocked") else None
    return WriteError(f"{code}: {error.info}", code=code, fatal=fatal, hint=hint)
