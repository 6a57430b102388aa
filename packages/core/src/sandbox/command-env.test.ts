import { describe, expect, it } from "vitest";
import { isSecretVariable, sandboxedEnv } from "./command-env.js";

const base = {
  PATH: "/usr/bin",
  HOME: "/home/p",
  LANG: "C.UTF-8",
  TERM: "dumb",
  TMPDIR: "/tmp",
  GITHUB_TOKEN: "ghp_x",
  AWS_SECRET_ACCESS_KEY: "aws",
  AWS_ACCESS_KEY_ID: "id",
  NPM_TOKEN: "npm",
  HF_TOKEN: "hf",
  GEMINI_API_KEY: "g",
  db_password: "pw",
  MYSQL_PWD_PASSWD: "pw",
  GOOGLE_APPLICATION_CREDENTIALS: "/x.json",
  CAIRN_REDIS_URL: "redis://:pw@host:6379",
  CAIRN_BASE_URL: "https://u:p@proxy",
  CAIRN_SANDBOX: "workspace-write",
  SSH_AUTH_SOCK: "/run/user/1000/ssh",
  DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
  GPG_AGENT_INFO: "/run/user/1000/gnupg",
  DISPLAY: ":0",
  XAUTHORITY: "/home/p/.Xauthority",
  WAYLAND_DISPLAY: "wayland-0",
  DB_PASS: "pw",
  MYSQL_PWD: "pw",
  GH_PAT: "ghp_x",
  SENTRY_DSN: "https://k@sentry.io/1",
  AZURE_STORAGE_CONNECTION_STRING: "AccountKey=x",
  CI_JOB_JWT: "eyJ",
  SIGNING_PRIVATE: "k",
  DATABASE_URL: "postgres://app:pw@db:5432/app",
  UPSTREAM: "redis://:pw@cache:6379",
  PWD: "/home/p/ws",
  OLDPWD: "/home/p",
  DOCS_URL: "https://user@example.com/docs?a=b:c@d",
  HOMEPAGE: "https://example.com/a:b@c",
};

describe("sandboxedEnv", () => {
  it("drops every variable named like a secret or holding a URL with a password, Cairn's endpoints, the agents' sockets and the display from a model's command; keeps the rest", () => {
    const env = sandboxedEnv(base, { dropSecrets: true, passEnv: [] });
    expect(Object.keys(env).sort()).toEqual(["CAIRN_SANDBOX", "DOCS_URL", "HOME", "HOMEPAGE", "LANG", "OLDPWD", "PATH", "PWD", "TERM", "TMPDIR"]);
  });

  it("lets a URL with a password through when passEnv names it", () => {
    const env = sandboxedEnv(base, { dropSecrets: true, passEnv: ["DATABASE_URL", "DISPLAY"] });
    expect(env.DATABASE_URL).toBe(base.DATABASE_URL);
    expect(env.DISPLAY).toBe(":0");
    expect(env.UPSTREAM).toBeUndefined();
  });

  it("passes the person's named variables and prefixes through", () => {
    const env = sandboxedEnv(base, { dropSecrets: true, passEnv: ["GITHUB_TOKEN", "AWS_*", "SSH_AUTH_SOCK"] });
    expect(env.GITHUB_TOKEN).toBe("ghp_x");
    expect(env.AWS_SECRET_ACCESS_KEY).toBe("aws");
    expect(env.AWS_ACCESS_KEY_ID).toBe("id");
    expect(env.SSH_AUTH_SOCK).toBe("/run/user/1000/ssh");
    expect(env.NPM_TOKEN).toBeUndefined();
  });

  it("keeps an MCP server's configured token (no dropSecrets) but still not the agents' sockets", () => {
    const env = sandboxedEnv(base, { dropSecrets: false, passEnv: [] });
    expect(env.GITHUB_TOKEN).toBe("ghp_x");
    expect(env.SSH_AUTH_SOCK).toBeUndefined();
    expect(env.DBUS_SESSION_BUS_ADDRESS).toBeUndefined();
    expect(env.DISPLAY).toBeUndefined();
    expect(env.XAUTHORITY).toBeUndefined();
    expect(env.WAYLAND_DISPLAY).toBeUndefined();
  });

  it("matches names case-insensitively", () => {
    for (const name of ["api_key", "Secret", "x_token_y", "PgPassword", "CREDENTIALS_FILE", "db_pass", "Mysql_Pwd", "gh_pat", "sentry_dsn", "ci_job_jwt", "PRIVATE_KEY_PATH"]) expect(isSecretVariable(name), name).toBe(true);
    for (const name of ["PATH", "HOME", "LANG", "TERM", "EDITOR", "NODE_OPTIONS", "CAIRN_HOME", "PWD", "OLDPWD", "PATCH_LEVEL", "PATH_INFO"]) expect(isSecretVariable(name), name).toBe(false);
  });
});
