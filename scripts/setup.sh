#!/usr/bin/env bash
# Sets up a clone on Debian/Ubuntu: installs Debian's chromium when no Chromium-family browser
# is found (tabwright never downloads a browser), then installs the npm dependencies (npm ci).
# Used by the README's quick start and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

node -e 'const [maj] = process.versions.node.split(".").map(Number); if (maj < 20) { console.error(`setup: Node ${process.versions.node} is too old; tabwright needs Node 20 or newer`); process.exit(1); }'

# apt-get update, then install the packages named (sudo when not root); the output goes to /tmp/tabwright-apt.log.
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/tmp/tabwright-apt.log 2>&1
}

have_browser() {
  if [ -n "${TABWRIGHT_BROWSER:-}" ]; then [ -x "${TABWRIGHT_BROWSER}" ]; return; fi
  for b in chromium chromium-browser google-chrome google-chrome-stable microsoft-edge brave-browser; do
    command -v "$b" >/dev/null 2>&1 && return 0
  done
  return 1
}

if ! have_browser; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: no Chromium-family browser found and no apt-get here; install Chromium or Chrome and set TABWRIGHT_BROWSER" >&2
    exit 1
  fi
  echo "setup: installing Debian's chromium package (no browser found)" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  if ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/tmp/tabwright-apt.log 2>&1 \
    && ! $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-browser >>/tmp/tabwright-apt.log 2>&1; then
    tail -n 20 /tmp/tabwright-apt.log >&2
    echo "setup: could not install Chromium with apt-get (on Ubuntu it is a snap); install Chromium or Chrome and set TABWRIGHT_BROWSER" >&2
    exit 1
  fi
fi

# better-sqlite3 (the script store, issue #6) compiles its native addon with node-gyp when no
# prebuilt binary can be fetched (no internet here): it needs python3, make and a C++ compiler.
missing=""
for t in python3 make g++; do command -v "$t" >/dev/null 2>&1 || missing="$missing $t"; done
if [ -n "$missing" ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing build tools for better-sqlite3:$missing" >&2
    apt_install python3 make g++ || { tail -n 20 /tmp/tabwright-apt.log >&2; exit 1; }
  else
    echo "setup: missing$missing, needed to build better-sqlite3; install them and run again" >&2
    exit 1
  fi
fi

# Installs packages that only some tests need: $1 names those tests, the rest are the Debian packages. Without them
# those tests skip, except under CI (CI=true), where setup fails instead.
test_packages() {
  local tests="$1"
  shift
  if command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing $* for $tests" >&2
    if ! apt_install "$@"; then
      tail -n 20 /tmp/tabwright-apt.log >&2
      echo "setup: could not install $* with apt-get; $tests will skip" >&2
      if [ -n "${CI:-}" ]; then exit 1; fi
    fi
  else
    echo "setup: missing $* and no apt-get here; $tests will skip" >&2
    if [ -n "${CI:-}" ]; then exit 1; fi
  fi
}

# The own-Chrome tests (test/fixtures/ownChrome.ts) run a headed Chromium on a virtual display and answer its
# "Allow remote debugging?" dialog with xdotool: Debian's xvfb and xdotool.
xmissing=""
command -v Xvfb >/dev/null 2>&1 || xmissing="$xmissing xvfb"
command -v xdotool >/dev/null 2>&1 || xmissing="$xmissing xdotool"
# shellcheck disable=SC2086 # one word per package
if [ -n "$xmissing" ]; then test_packages "the own-Chrome tests" $xmissing; fi

# The recording tests (test/tools/recording.test.ts) encode with Debian's ffmpeg: only with --recording (.ci/run
# passes it), since tabwright itself needs ffmpeg only for start_recording (docs/recording.md).
if [ "${1:-}" = "--recording" ] && ! command -v ffmpeg >/dev/null 2>&1 && [ -z "${TABWRIGHT_FFMPEG:-}" ]; then
  test_packages "the recording tests" ffmpeg
fi

# The Firefox tests (test/fixtures/firefox.ts) drive Debian's firefox-esr through WebDriver BiDi.
if ! command -v firefox-esr >/dev/null 2>&1 && [ -z "${TABWRIGHT_TEST_FIREFOX:-}" ]; then
  test_packages "the Firefox tests" firefox-esr
fi

# .npmrc sets foreground-scripts, so better-sqlite3's install prints what it fetches or compiles as it goes.
echo "setup: npm ci: better-sqlite3 fetches a prebuilt SQLite addon, or else compiles one (a few minutes on two cores; its lines follow)" >&2
npm ci --no-audit --no-fund
