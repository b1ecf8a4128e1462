#!/usr/bin/env bash
# shellcheck disable=SC1090 # sources the environment files it writes
# Panel production install, upgrade and uninstall for Debian and Ubuntu (run as root). A re-run
# changes nothing when nothing changed. Nothing secret is ever printed. See --help.
set -euo pipefail

usage() {
  cat <<'EOF'
install.sh: install, upgrade or remove Panel on a Debian or Ubuntu host (run as root)

  install.sh [--binary PATH] [--port N] [--data-dir DIR] [--prefix DIR]
  install.sh --uninstall [--purge] [--prefix DIR]
  install.sh --daemon URL --token T [--name NAME] [--force] [--prefix DIR]

  --binary PATH    the panel executable to install; without it, run from a Panel checkout, it
                   is built there (npm ci && npm run build; reused while the sources are unchanged)
  --port N         TCP port of the HTTP server (default 3000, or the one installed before)
  --data-dir DIR   database and runtime files (default /var/lib/panel, or the one installed before)
  --prefix DIR     install into DIR as a root file system (tests, staging): no user is created,
                   systemctl is not used; `panel serve` runs directly as the invoking user with
                   its pid file in DIR/run/panel and its log in DIR/var/log/panel
  --uninstall      stop and remove the services (and a daemon --daemon started in the background)
                   and the executable; keeps the data directory, /etc/panel/panel.env (the key
                   ring that opens it) and a joined daemon's identity (/var/lib/panel-daemon)
  --purge          with --uninstall: also remove the data, /etc/panel, the daemon's identity
                   and the panel user
  --daemon URL     daemon mode, for a server joining the Panel at URL (what the console's join
                   command runs, piped from URL/api/daemon/v1/install.sh): downloads Panel's
                   executable from URL, checks its SHA-256, installs it, joins with --token
                   (and --name), and runs the daemon as the panel-daemon systemd unit; without
                   systemd (or with --prefix) it starts the daemon in the background instead,
                   pid in DIR/run/panel-daemon.pid, log in DIR/var/log/panel/panel-daemon.log.
                   --force joins again over an existing identity
  -h, --help       this text

A different executable is an upgrade: stop, back up, replace (keeping panel.previous), start,
and roll both back unless /api/health answers 200 within PANEL_INSTALL_HEALTH_TIMEOUT seconds
(default 30). What it creates, and why: README.md, "Production install".
EOF
}

die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }
usage_error() { printf 'install.sh: %s (see --help)\n' "$*" >&2; exit 2; }
say() { printf '%s\n' "$*"; }

PREFIX="" PORT="" DATA_DIR="" BINARY="" ACTION=install PURGE=0
DAEMON_URL="" TOKEN="" SERVER_NAME="" FORCE=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --binary | --port | --data-dir | --prefix | --daemon | --token | --name)
      [ "$#" -ge 2 ] || usage_error "$1 needs a value"
      case "$1" in
        --binary) BINARY=$2 ;; --port) PORT=$2 ;; --data-dir) DATA_DIR=$2 ;; --prefix) PREFIX=$2 ;;
        --daemon) DAEMON_URL=$2 ACTION=daemon ;; --token) TOKEN=$2 ;; *) SERVER_NAME=$2 ;;
      esac
      shift 2 ;;
    --force) FORCE=1; shift ;;
    --binary=*) BINARY=${1#*=}; shift ;;
    --port=*) PORT=${1#*=}; shift ;;
    --data-dir=*) DATA_DIR=${1#*=}; shift ;;
    --prefix=*) PREFIX=${1#*=}; shift ;;
    --uninstall) ACTION=uninstall; shift ;;
    --purge) PURGE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage_error "unknown argument: $1" ;;
  esac
done
[ "$PURGE" = 0 ] || [ "$ACTION" = uninstall ] || usage_error "--purge goes with --uninstall"
if [ "$ACTION" = daemon ]; then
  case "$DAEMON_URL" in http://?* | https://?*) DAEMON_URL=${DAEMON_URL%/} ;; *) usage_error "--daemon needs the control plane's URL (https://...)" ;; esac
  [ -n "$TOKEN" ] || usage_error "--daemon needs --token (the console's join command carries it)"
elif [ -n "$TOKEN$SERVER_NAME" ] || [ "$FORCE" = 1 ]; then
  usage_error "--token, --name and --force go with --daemon"
fi
HEALTH_TIMEOUT=${PANEL_INSTALL_HEALTH_TIMEOUT:-30}
case "$HEALTH_TIMEOUT" in '' | *[!0-9]*) usage_error "PANEL_INSTALL_HEALTH_TIMEOUT must be a number of seconds" ;; esac
if [ -n "$PREFIX" ]; then
  mkdir -p -- "$PREFIX"
  PREFIX=$(cd -- "$PREFIX" && pwd -P)
  [ "$PREFIX" != / ] || usage_error "--prefix / is the real system: leave --prefix out"
  MODE=prefix
elif [ -d /run/systemd/system ]; then MODE=systemd
else MODE=manual
fi
if [ "$MODE" != prefix ] && [ "$(id -u)" != 0 ]; then die "run as root (sudo $0 ...)"; fi

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]:-.}")" && pwd -P)
# Paths on the target system; on disk each lives under $R (the prefix; empty for the real root).
R=$PREFIX
BIN_DIR=/usr/local/bin BIN=/usr/local/bin/panel
PREV=/usr/local/bin/panel.previous FAILED=/usr/local/bin/panel.failed
CONF_DIR=/etc/panel ENV_FILE=/etc/panel/panel.env INSTALL_ENV=/etc/panel/install.env
UNIT_DIR=/etc/systemd/system RUN_DIR=/run/panel SOCKET=/run/panel/daemon.sock
DAEMON_STATE=/var/lib/panel-daemon
LOG_DIR=/var/log/panel PIDFILE=/run/panel/panel.pid # prefix mode only (systemd has the journal)

# A value from a systemd environment file (last assignment wins). Never used for PANEL_SECRETS.
env_value() {
  [ -f "$1" ] || return 0
  sed -n "s/^[[:space:]]*$2=//p" "$1" | tail -n 1 | sed -e 's/^"\(.*\)"$/\1/' -e "s/^'\(.*\)'\$/\1/"
}

mkdir -p -- "$R/run"
exec 9>>"$R/run/panel-install.lock"
flock -w 120 9 || die "another install.sh is running"

PORT=${PORT:-$(env_value "$R$INSTALL_ENV" PANEL_PORT)}
PORT=${PORT:-3000}
case "$PORT" in '' | *[!0-9]*) usage_error "--port must be a number from 1 to 65535" ;; esac
if [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then usage_error "--port must be a number from 1 to 65535"; fi
DATA_DIR=${DATA_DIR:-$(env_value "$R$INSTALL_ENV" PANEL_DATA_DIR)}
DATA_DIR=${DATA_DIR:-/var/lib/panel}
DATA_DIR=${DATA_DIR%/}
case "$DATA_DIR" in /?*) ;; *) usage_error "--data-dir must be an absolute path other than /" ;; esac
case "$DATA_DIR" in *[!A-Za-z0-9/._-]* | */.* ) usage_error "--data-dir may hold letters, digits, . _ - and /, no part starting with a dot" ;; esac
# It is chowned to panel, chmodded 0700 and removed by --purge: never a system directory.
case "$DATA_DIR" in /bin | /boot | /dev | /etc | /etc/* | /home | /lib* | /media | /mnt | /opt | /proc | /root | /run | /sbin | /srv | /sys | /tmp | /usr | /usr/* | /var | /var/lib | /var/log | /var/tmp)
  usage_error "--data-dir $DATA_DIR is a system directory; give Panel its own, like /var/lib/panel" ;; esac

# --- services: systemd units, or (prefix mode) `panel serve` run directly with a pid file ----------

# The service's environment: install.env, then panel.env (which wins), as systemd reads them.
load_service_env() {
  set -a
  . "$R$INSTALL_ENV"
  if [ -f "$R$ENV_FILE" ]; then . "$R$ENV_FILE"; fi
  set +a
  if [ "$MODE" = prefix ]; then export PANEL_DATA_DIR="$R$DATA_DIR" PANEL_DAEMON_SOCKET="$R$SOCKET"; fi
}

# A panel command with the service's environment, as the panel user outside prefix mode. The key
# ring is only ever loaded into this subshell.
run_panel() {
  (
    cd /
    load_service_env
    if [ "$MODE" = prefix ]; then exec "$@"; fi
    exec setpriv --reuid=panel --regid=panel --init-groups "$@"
  ) 9>&-
}

is_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; } # not a zombie
prefix_pid() { cat -- "$R$PIDFILE" 2>/dev/null || true; }

service_running() {
  case "$MODE" in systemd) systemctl is-active --quiet panel.service ;; prefix) is_alive "$(prefix_pid)" ;; *) return 1 ;; esac
}

service_start() {
  case "$MODE" in
    systemd) systemctl start panel.service ;;
    prefix)
      install -d -m 0700 "$R$RUN_DIR" "$R$LOG_DIR"
      (umask 077 && : >>"$R$LOG_DIR/panel.log") # the operator's only (it names paths and addresses)
      (cd / && load_service_env && exec setsid "$R$BIN" serve) </dev/null >>"$R$LOG_DIR/panel.log" 2>&1 9>&- &
      printf '%s\n' "$!" >"$R$PIDFILE" ;;
  esac
}

# TERM, up to 30 s to exit, then KILL.
stop_pid() {
  local pid=$1 waited=0
  is_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  while is_alive "$pid" && [ "$waited" -lt 150 ]; do sleep 0.2; waited=$((waited + 1)); done
  if is_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
}

service_stop() {
  case "$MODE" in
    systemd) systemctl stop panel.service ;;
    prefix) stop_pid "$(prefix_pid)"; rm -f -- "$R$PIDFILE" ;;
  esac
}

# Where Panel answers: panel.env may override the host and port install.env sets.
listen_host() {
  case "$(env_value "$R$ENV_FILE" PANEL_HOST)" in '' | 0.0.0.0) printf '127.0.0.1' ;; :: | '[::]') printf '::1' ;; *) env_value "$R$ENV_FILE" PANEL_HOST ;; esac
}
listen_port() { local port; port=$(env_value "$R$ENV_FILE" PANEL_PORT); printf '%s' "${port:-$PORT}"; }

# The HTTP status of GET <path> with bash's /dev/tcp (no curl needed), or nothing.
http_status() {
  # shellcheck disable=SC2016 # expanded by the inner bash
  timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
    printf "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" "$3" >&3
    IFS=" " read -r _ status _ <&3 && printf "%s\n" "$status"' _ "$(listen_host)" "$(listen_port)" "$1" 2>/dev/null 9>&- || true
}

# Polls /api/health until 200, the service dies, or the timeout passes.
wait_healthy() {
  local deadline=$(($(date +%s) + HEALTH_TIMEOUT))
  while [ "$(date +%s)" -le "$deadline" ]; do
    [ "$(http_status /api/health)" = 200 ] && return 0
    case "$MODE" in
      prefix) is_alive "$(prefix_pid)" || return 1 ;;
      systemd) if systemctl is-failed --quiet panel.service; then return 1; fi ;;
    esac
    sleep 0.5
  done
  return 1
}
say_logs() { if [ "$MODE" = prefix ]; then say "  log: $R$LOG_DIR/panel.log"; else say "  log: journalctl -u panel.service"; fi; }

# --- files -----------------------------------------------------------------------------------------
CHANGED=0
# Writes stdin to <path> (under the root) with <mode>, only when the content differs.
put_file() {
  local path=$R$1 tmp
  tmp=$(mktemp "${path%/*}/.${path##*/}.XXXXXX")
  cat >"$tmp"
  if [ -f "$path" ] && cmp -s -- "$tmp" "$path"; then rm -f -- "$tmp"; chmod "$2" "$path"; return 0; fi
  chmod "$2" "$tmp" && mv -f -- "$tmp" "$path"
  CHANGED=1
}

copy_exec() { # source target: a copy made beside the target, then renamed over it
  local tmp
  tmp=$(mktemp "${2%/*}/.${2##*/}.XXXXXX")
  cat -- "$1" >"$tmp" && chmod 0755 "$tmp"
  mv -f -- "$tmp" "$2"
}

write_install_env() {
  put_file "$INSTALL_ENV" 0644 <<EOF
# Managed by install.sh: re-run it with --port or --data-dir to change these. Your own settings
# (PANEL_PUBLIC_URL, PANEL_HOST, OAuth, ...) go in $ENV_FILE, which overrides this file.
PANEL_DATA_DIR=$DATA_DIR
PANEL_PORT=$PORT
PANEL_DAEMON_SOCKET=$SOCKET
# The local daemon is panel-daemon.service (root, it drives Docker), not a child of panel serve.
PANEL_LOCAL_DAEMON=off
EOF
}

# Generated once, never rewritten (ln refuses to replace an existing file).
ensure_env_file() {
  local path=$R$ENV_FILE tmp key_id
  if [ -e "$path" ]; then
    grep -Eq '^[[:space:]]*PANEL_SECRETS(_FILE)?=' "$path" || say "warning: $ENV_FILE sets neither PANEL_SECRETS nor PANEL_SECRETS_FILE; Panel will not start"
    return 0
  fi
  key_id="k$(date -u +%Y%m%d)-$(head -c 3 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  tmp=$(mktemp "$R$CONF_DIR/.panel.env.XXXXXX")
  chmod 0600 "$tmp"
  {
    say "# Panel settings for panel.service (systemd EnvironmentFile syntax; overrides install.env)."
    say "# Written once by install.sh, never rewritten. Root only: PANEL_SECRETS is the key ring that"
    say "# opens every sealed secret; back it up apart from the data. To rotate, prepend a new"
    say "# <keyId>:<base64 key> entry (comma separated), restart, re-encrypt, then drop the old one."
    printf 'PANEL_SECRETS=%s:%s\n' "$key_id" "$(head -c 32 /dev/urandom | base64 -w0)"
    say "# PANEL_PUBLIC_URL=https://panel.example.com"
    say "# PANEL_HOST=0.0.0.0"
  } >"$tmp"
  ln -- "$tmp" "$path" 2>/dev/null || [ -e "$path" ] || { rm -f -- "$tmp"; die "cannot create $path"; }
  rm -f -- "$tmp"
  say "generated a key ring (key id $key_id) in $R$ENV_FILE, mode 0600"
}

# A unit from deploy/systemd/ beside this script (or the template file given), with its @NAME@
# placeholders filled in.
render_unit() {
  local template=${2:-$SCRIPT_DIR/deploy/systemd/$1} caps=""
  [ -f "$template" ] || die "$template is missing: run install.sh from a Panel checkout or release"
  if [ "$PORT" -lt 1024 ]; then caps=CAP_NET_BIND_SERVICE; fi
  sed -e "s|@BIN@|$BIN|g" -e "s|@INSTALL_ENV@|$INSTALL_ENV|g" -e "s|@ENV_FILE@|$ENV_FILE|g" \
    -e "s|@DATA_DIR@|$DATA_DIR|g" -e "s|@SOCKET@|$SOCKET|g" -e "s|@DAEMON_STATE@|$DAEMON_STATE|g" \
    -e "s|@CAPS@|$caps|g" -- "$template"
}

# Sets BINARY: the given one, or dist/panel of the checkout this script sits in (built when the
# sources differ from the last build, so a re-run installs the very same file).
resolve_binary() {
  local repo=$SCRIPT_DIR fingerprint paths=()
  if [ -n "$BINARY" ]; then
    [ -f "$BINARY" ] || die "--binary $BINARY: no such file"
    BINARY=$(cd -- "$(dirname -- "$BINARY")" && pwd -P)/$(basename -- "$BINARY") && return 0 # never looked up in PATH
  fi
  if [ ! -f "$repo/package.json" ] || [ ! -f "$repo/scripts/build.ts" ] || [ ! -f "$repo/src/main.ts" ]; then
    die "no --binary given, and this script is not in a Panel checkout to build from"
  fi
  for path in src migrations web scripts package.json package-lock.json bunfig.toml tsconfig.json; do
    if [ -e "$repo/$path" ]; then paths+=("$path"); fi
  done
  fingerprint=$(cd -- "$repo" && find "${paths[@]}" -type f -not -path '*/node_modules/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)
  BINARY=$repo/dist/panel
  if [ -x "$BINARY" ] && [ "$(cat -- "$repo/dist/.build-fingerprint" 2>/dev/null)" = "$fingerprint" ]; then
    say "using $BINARY (built from these sources before)"
    return 0
  fi
  command -v npm >/dev/null 2>&1 || die "building from the checkout needs Node.js and npm (apt-get install nodejs npm), or pass --binary"
  say "building Panel in $repo (npm ci && npm run build)"
  (cd -- "$repo" && npm ci && npm run build) 9>&-
  printf '%s\n' "$fingerprint" >"$repo/dist/.build-fingerprint"
}

# --- install, upgrade, uninstall ---------------------------------------------------------------------
prune_backups() { # keeps the newest five pre-upgrade backups
  find "$R$DATA_DIR/backups" -maxdepth 1 -name 'pre-upgrade-*.db' -printf '%T@ %p\n' 2>/dev/null |
    sort -rn | tail -n +6 | cut -d' ' -f2- | while IFS= read -r old; do rm -f -- "$old"; done || true
}
installed_version() { "$R$BIN" version 2>/dev/null | tr -cd 'A-Za-z0-9._-' || true; }
BACKUP=""
backup_database() { # <version>: `panel backup` (online-safe) into <data dir>/backups; sets BACKUP
  [ -f "$R$DATA_DIR/panel.db" ] || return 0
  BACKUP=$DATA_DIR/backups/pre-upgrade-$(date -u +%Y%m%dT%H%M%SZ)-$$-$1.db
  if [ "$MODE" = prefix ]; then install -d -m 0700 "$R$DATA_DIR/backups"; else install -d -m 0700 -o panel -g panel "$DATA_DIR/backups"; fi
  run_panel "$R$BIN" backup "$R$BACKUP" >/dev/null || return 1
  say "database backed up to $R$BACKUP"
}

upgrade() { # new-binary new-version
  local old_version
  old_version=$(installed_version)
  old_version=${old_version:-unknown}
  say "upgrading Panel $old_version -> $2"
  service_stop
  backup_database "$old_version" || { service_start; die "the backup failed; nothing was changed and Panel runs the old executable again"; }
  copy_exec "$R$BIN" "$R$PREV"
  copy_exec "$1" "$R$BIN"
  service_start
  if wait_healthy; then
    say "Panel $2 is healthy; the previous executable is kept as $R$PREV"
    prune_backups
    return 0
  fi
  say "Panel $2 did not become healthy (it exited, or /api/health gave no 200 within ${HEALTH_TIMEOUT}s): rolling back"
  say_logs
  service_stop
  mv -f -- "$R$BIN" "$R$FAILED"
  copy_exec "$R$PREV" "$R$BIN"
  if [ -n "$BACKUP" ]; then
    run_panel "$R$BIN" restore "$R$BACKUP" >/dev/null || die "restoring the database from $R$BACKUP failed; Panel is stopped"
  fi
  service_start
  wait_healthy || die "the rollback did not come back healthy either; the pre-upgrade backup is $R$BACKUP"
  die "the upgrade to $2 failed and was rolled back: $R$BIN is $old_version again${BACKUP:+, the database restored from $R$BACKUP}; the failed executable is kept as $R$FAILED"
}

print_next_steps() {
  local url token=$DATA_DIR/install-token
  url=$(env_value "$R$ENV_FILE" PANEL_PUBLIC_URL)
  url=${url:-http://$(listen_host):$(listen_port)}
  if [ "$MODE" = manual ]; then
    say "systemd is not running here, so nothing was started. Start the services with:"
    say "  install -d -o panel -g panel -m 0700 $RUN_DIR"
    say "  (set -a; . $INSTALL_ENV; . $ENV_FILE; exec setpriv --reuid=panel --regid=panel --init-groups $BIN serve) &"
    say "  $BIN daemon run --local --socket $SOCKET --credential-file $DATA_DIR/local-daemon.credential --state-dir $DAEMON_STATE &"
  fi
  if [ -f "$R$token" ] || [ "$MODE" = manual ]; then
    say "Install wizard: $url/install"
    say "Install token:  $R$token (root only; deleted once the install completes)"
  else
    say "Panel is installed: sign in at $url"
  fi
  if [ "$MODE" = prefix ]; then say "(prefix mode: the local daemon is not started; it needs root and Docker)"; fi
}

do_install() {
  local version first=0 upgrading=0
  resolve_binary
  [ -x "$BINARY" ] || die "$BINARY is not executable"
  version=$("$BINARY" version 2>/dev/null | tr -cd 'A-Za-z0-9._-') || version=""
  [ -n "$version" ] || die "$BINARY does not run ('panel version' failed): not a panel executable for this machine?"
  if [ "$MODE" != prefix ] && ! id -u panel >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$DATA_DIR" --no-create-home --shell /usr/sbin/nologin --comment "Panel control plane" panel
    say "created the system user panel"
  fi
  install -d -m 0755 "$R$BIN_DIR" "$R$CONF_DIR" "$R$UNIT_DIR"
  install -d -m 0700 "$R$DAEMON_STATE"
  if [ "$MODE" = prefix ]; then install -d -m 0700 "$R$DATA_DIR"; else install -d -m 0700 -o panel -g panel "$DATA_DIR"; fi
  ensure_env_file
  write_install_env
  render_unit panel.service | put_file "$UNIT_DIR/panel.service" 0644
  render_unit panel-daemon.service | put_file "$UNIT_DIR/panel-daemon.service" 0644
  if [ ! -f "$R$BIN" ]; then first=1; copy_exec "$BINARY" "$R$BIN"; say "installed $R$BIN ($version)"
  elif ! cmp -s -- "$BINARY" "$R$BIN"; then upgrading=1
  fi
  case "$MODE" in
    manual)
      if [ "$upgrading" = 1 ]; then
        backup_database "$(installed_version)" || die "the backup failed; nothing was changed"
        copy_exec "$R$BIN" "$R$PREV"
        copy_exec "$BINARY" "$R$BIN"
        say "replaced $BIN with $version (the previous one is kept as $PREV): restart Panel to run it"
      fi ;;
    *)
      if [ "$MODE" = systemd ] && [ "$CHANGED" = 1 ]; then systemctl daemon-reload; fi
      if [ "$upgrading" = 1 ]; then upgrade "$BINARY" "$version"
      elif [ "$first" = 1 ] || [ "$CHANGED" = 1 ] || ! service_running; then
        if service_running; then service_stop; fi
        service_start
        wait_healthy || { say "Panel did not become healthy (it exited, or /api/health gave no 200 within ${HEALTH_TIMEOUT}s)"; say_logs; exit 1; }
        say "Panel $version is running"
      else
        say "Panel $version is installed and running; nothing changed"
      fi
      if [ "$MODE" = systemd ]; then
        systemctl enable --quiet panel.service panel-daemon.service
        if [ "$upgrading" = 1 ] || [ "$CHANGED" = 1 ]; then systemctl restart panel-daemon.service; else systemctl start panel-daemon.service; fi
        command -v docker >/dev/null 2>&1 || say "note: Docker is not installed; the local daemon waits for it"
      fi ;;
  esac
  print_next_steps
}

do_uninstall() {
  case "$MODE" in
    systemd) systemctl disable --now panel-daemon.service panel.service 2>/dev/null || true ;;
    prefix) service_stop ;;
    manual) say "systemd is not running: stop any panel serve you started yourself" ;;
  esac
  # A daemon that --daemon started in the background (no systemd, or --prefix).
  if [ "$MODE" != systemd ] && is_alive "$(daemon_pid)"; then stop_pid "$(daemon_pid)"; say "stopped the daemon"; fi
  rm -f -- "$R$UNIT_DIR/panel.service" "$R$UNIT_DIR/panel-daemon.service" "$R$BIN" "$R$PREV" "$R$FAILED" "$R$INSTALL_ENV" "$R$DAEMON_PIDFILE"
  if [ "$MODE" = systemd ]; then systemctl daemon-reload; else rm -rf -- "$R$RUN_DIR"; fi
  if [ "$PURGE" = 1 ]; then
    rm -rf -- "$R$DATA_DIR" "$R$CONF_DIR" "$R$DAEMON_STATE" "$R$LOG_DIR"
    if [ "$MODE" != prefix ] && id -u panel >/dev/null 2>&1; then userdel panel; fi
    say "Panel is removed, with its data, configuration, key ring and daemon identity"
    return
  fi
  local kept=()
  if [ -e "$R$DATA_DIR" ]; then kept+=("$R$DATA_DIR (data)"); fi
  if [ -e "$R$ENV_FILE" ]; then kept+=("$R$ENV_FILE (its key ring)"); fi
  if [ -e "$R$DAEMON_STATE/identity.json" ]; then kept+=("$R$DAEMON_STATE (the daemon's identity: a join command run here again reconnects as the same server)"); fi
  say "Panel is removed."
  if [ "${#kept[@]}" -gt 0 ]; then
    say "Kept (--uninstall --purge removes them):"
    printf '  %s\n' "${kept[@]}"
  fi
  if [ -e "$R$DAEMON_STATE/identity.json" ]; then say "This server stays listed in Panel, disconnected. Panel deletes a server once no container of it is left: if containers still run here, run a join command again (it reconnects), destroy their deployments in Panel, then delete the server on the Servers page."; fi
}

# --- daemon mode: a server joining a control plane elsewhere ------------------------------------------
# GET <url> into <file>; with a third argument, sent as a Bearer token (kept out of curl's argv).
fetch() {
  if command -v curl >/dev/null 2>&1; then
    if [ -n "${3:-}" ]; then
      printf 'header = "Authorization: Bearer %s"\n' "$3" | curl -fsSL --proto '=http,https' -K - -o "$2" -- "$1"
    else
      curl -fsSL --proto '=http,https' -o "$2" -- "$1"
    fi
  elif command -v wget >/dev/null 2>&1; then
    wget -q ${3:+"--header=Authorization: Bearer $3"} -O "$2" -- "$1"
  else
    die "downloading needs curl or wget (apt-get install curl)"
  fi
}

daemon_platform() {
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64 | Linux-amd64) printf 'linux-x64' ;;
    Linux-aarch64 | Linux-arm64) printf 'linux-arm64' ;;
    *) die "no Panel executable for $(uname -s) $(uname -m)" ;;
  esac
}

DAEMON_PIDFILE=/run/panel-daemon.pid DAEMON_LOG=/var/log/panel/panel-daemon.log
daemon_pid() { cat -- "$R$DAEMON_PIDFILE" 2>/dev/null || true; }

# The daemon in the background, where no systemd supervises it (a container, or --prefix).
daemon_start_detached() {
  local pid
  pid=$(daemon_pid)
  if is_alive "$pid"; then kill -TERM "$pid" 2>/dev/null || true; fi
  install -d -m 0700 "$R$LOG_DIR"
  (cd / && exec setsid "$R$BIN" daemon run --state-dir "$R$DAEMON_STATE") </dev/null >>"$R$DAEMON_LOG" 2>&1 9>&- &
  printf '%s\n' "$!" >"$R$DAEMON_PIDFILE"
  say "the daemon runs in the background (pid $!, log $R$DAEMON_LOG); nothing restarts it after a crash or a reboot"
}

do_daemon_install() {
  local platform expected actual tmp unit
  platform=$(daemon_platform)
  install -d -m 0755 "$R$BIN_DIR" "$R$UNIT_DIR" "$R/run"
  install -d -m 0700 "$R$DAEMON_STATE"
  tmp=$(mktemp "$R$BIN_DIR/.panel.XXXXXX")
  # shellcheck disable=SC2064 # the paths are fixed now
  trap "rm -f -- '$tmp' '$tmp.sha256' '$tmp.service'" EXIT
  fetch "$DAEMON_URL/api/daemon/v1/executable/$platform.sha256" "$tmp.sha256" ||
    die "cannot reach $DAEMON_URL from this server: is Panel's PANEL_PUBLIC_URL an address this server reaches?"
  expected=$(awk '{print $1; exit}' "$tmp.sha256")
  [[ "$expected" =~ ^[0-9a-f]{64}$ ]] || die "$DAEMON_URL answered no SHA-256 for the $platform executable"
  say "downloading Panel's $platform executable from $DAEMON_URL"
  fetch "$DAEMON_URL/api/daemon/v1/executable/$platform" "$tmp" "$TOKEN" ||
    die "the download was refused: an expired or used join token answers 401; create a new join command in the console"
  actual=$(sha256sum -- "$tmp" | awk '{print $1}')
  [ "$actual" = "$expected" ] || die "the download does not match its checksum (expected $expected, got $actual); nothing was installed"
  say "checksum verified: sha256 $actual"
  chmod 0755 "$tmp"
  if [ -f "$R$BIN" ] && cmp -s -- "$tmp" "$R$BIN"; then rm -f -- "$tmp"; else mv -f -- "$tmp" "$R$BIN"; say "installed $R$BIN"; fi

  if [ -f "$R$DAEMON_STATE/identity.json" ] && [ "$FORCE" = 0 ]; then
    say "already joined ($R$DAEMON_STATE/identity.json); pass --force to join again with this token"
  else
    local join=("$R$BIN" daemon join "$DAEMON_URL" --state-dir "$R$DAEMON_STATE")
    if [ -n "$SERVER_NAME" ]; then join+=(--name "$SERVER_NAME"); fi
    if [ "$FORCE" = 1 ]; then join+=(--force); fi
    PANEL_DAEMON_TOKEN=$TOKEN "${join[@]}" || die "joining $DAEMON_URL failed (see above)"
  fi

  if [ "$MODE" = systemd ]; then
    unit=$SCRIPT_DIR/deploy/systemd/panel-daemon-remote.service
    if [ ! -f "$unit" ]; then
      unit=$tmp.service
      fetch "$DAEMON_URL/api/daemon/v1/panel-daemon.service" "$unit" || die "cannot fetch the daemon's unit from $DAEMON_URL"
    fi
    render_unit panel-daemon-remote.service "$unit" | put_file "$UNIT_DIR/panel-daemon.service" 0644
    systemctl daemon-reload
    systemctl enable --quiet panel-daemon.service
    systemctl restart panel-daemon.service
    say "the daemon runs as panel-daemon.service (journalctl -u panel-daemon); this server appears in Panel once it connects"
  else
    daemon_start_detached
  fi
  command -v docker >/dev/null 2>&1 || say "note: Docker is not installed here; deploys fail until it is (curl -fsSL https://get.docker.com -o get-docker.sh && sh get-docker.sh)"
  command -v wg >/dev/null 2>&1 || say "note: WireGuard tools are not installed here; the overlay fabric needs them if your organization turns it on (apt-get install wireguard-tools, and wireguard-go where the kernel has no WireGuard module)"
}

case "$ACTION" in
  uninstall) do_uninstall ;;
  daemon) do_daemon_install ;;
  *) do_install ;;
esac
