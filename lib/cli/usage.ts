/**
 * The `toolsmith` command's help texts and usage error.
 *
 * @module
 */

/** A command line the program cannot act on: reported in one line, exit code 2. */
export class CliUsageError extends Error {
  /** Always 2. */
  readonly exitCode = 2
  /** Which command's help to point at, if any. */
  readonly command: string | undefined

  /**
   * @param message - What is wrong, in one line.
   * @param command - The command whose `--help` explains the fix.
   */
  constructor(message: string, command?: string) {
    super(message)
    this.name = 'CliUsageError'
    this.command = command
  }
}

const SANDBOX = `  --allow-network          Let bash reach the whole network (cut by the kernel by default)
  --allow-domain D         Let bash reach host D through the kit's proxy (repeatable; exact
                           hosts, *.example.com, or *); hosts not listed answer 403 with
                           their name, and so do all hosts when none is listed
  --no-os-sandbox          Run bash without the OS sandbox (bubblewrap): commands can then
                           read and write anything this user can; only for machines
                           without bubblewrap (see "toolsmith doctor")
  --limit-processes N      Most processes a bash command may have at once (default: 1024)
  --limit-memory SIZE      Most memory a bash command may use, all its processes
                           together (default: 4G)
  --limit-tmp SIZE         Size of bash's private /tmp and of its /run (default: 1G each)
  --limit-file-size SIZE   Largest file a bash command may write (default: 4G)
                           SIZE is bytes, or a number with K, M, G or T (binary units);
                           "off" switches a limit off`

const HOST_VIEW = `  --readable-host all|system
                           What of the host bash sees: all of it read-only (default),
                           or only the system folders (/usr, /etc, /opt…), the root
                           and --readable-path: no home directory at all
  --readable-path P        A host path bash may read with --readable-host system (a
                           toolchain under the home directory; repeatable)`

const COMMON = `Options:
  --root DIR               Sandbox root: read, write, edit and grep stay inside it; bash
                           may write only there (and in a private /tmp), reads the rest
                           of the host read-only, without the user's credentials and
                           without network (default: the current directory)
${SANDBOX}
${HOST_VIEW}
  --max-output-bytes N     Largest output, file or content a tool handles (default: 200000)
  --timeout-ms N           Timeout of bash and grep calls (default: 60000)
  -h, --help               Show this help`

/** Help of each command, and of the program (key `''`). */
export const HELP: Readonly<Record<string, string>> = {
  '': `Usage: toolsmith <command> [options]

Sandboxed read, write, edit, grep and bash tools for agents.

Commands:
  mcp                        Serve the five tools over MCP (stdio, or HTTP with --http)
  call TOOL JSON             Run one tool call and print its result
  describe [--provider P]    Print the tool definitions as a JSON array
  demo                       Run a scripted agent turn on a copy of a small project
  doctor                     Print what the bash sandbox enforces on this machine
  journal migrate --postgres URL
                             Create or upgrade the PostgreSQL journal's tables (safe to rerun)
  journal audit --jsonl FILE | --sqlite FILE | --postgres URL
                             Print the permission decisions a journal recorded
  journal show --jsonl FILE | --sqlite FILE | --postgres URL
                             List the calls (and turn checkpoints) a journal holds

Run "toolsmith <command> --help" for a command's options.
Exit codes: 0 success, 1 the tool call or demo failed (doctor: the OS sandbox
is unavailable; journal: the database refused), 2 usage error, 130 interrupted
(Ctrl-C: a running command is stopped first).
Colour on a terminal only; NO_COLOR=1 turns it off, FORCE_COLOR=1 forces it on,
FORCE_COLOR=0 off.

  -h, --help               Show this help
  -v, --version            Print the version`,

  mcp: `Usage: toolsmith mcp [options]

Serve read, write, edit, grep and bash over the Model Context Protocol on
stdin/stdout, sandboxed to --root. Point any MCP client at this command,
with absolute paths (a client does not start in your project, so a bare
"npx toolsmith" would look on the registry):
  { "command": "node",
    "args": ["/path/to/project/node_modules/toolsmith/dist/cli/main.js",
             "mcp", "--root", "/path/to/project"] }

${COMMON}
  --policy FILE            Permission policy (JSON, see docs/permissions.md): a denied
                           call is an error result with TOOL_DENIED; "ask" is put to
                           the client through MCP elicitation when it supports it,
                           and denied otherwise
  --approval-timeout-ms N  How long such a question waits for the client's answer
                           before the call is denied (default: 600000, 10 minutes)
  --journal SPEC           Record every call: FILE.jsonl, FILE.sqlite, a postgres://
                           URL, or "postgres" for the URL in TOOLSMITH_JOURNAL_URL. A
                           request whose _meta carries
                           "io.github.toolsmith/idempotency-key" is durable: a repeat
                           of it gets the recorded result, the tool does not run again
  --schema S               Schema of a PostgreSQL journal (default: toolsmith)
  --http [HOST:]PORT       Serve Streamable HTTP on http://HOST:PORT/mcp instead of
                           stdio (HOST defaults to 127.0.0.1; PORT 0 picks a free
                           one, printed on stderr). Stateless: replicas on one
                           --journal may sit behind any load balancer. Beyond
                           loopback, TOOLSMITH_MCP_TOKEN must hold a secret (16+
                           characters) that clients send as "Authorization: Bearer"
  --allowed-origin HOST    With --http: a browser Origin hostname allowed besides
                           localhost (repeatable)`,

  call: `Usage: toolsmith call TOOL JSON [options]

Run one call of TOOL (read, write, edit, grep or bash) with JSON arguments
("-" reads them from stdin) and print the result to stdout. On failure, print
one line "CODE: message" to stderr and exit with 1.

Examples:
  toolsmith call read '{"path":"package.json"}'
  toolsmith call grep '{"pattern":"TODO","path":"lib"}'
  toolsmith call bash '{"cmd":"git","args":["status","--short"]}'
  toolsmith call write '{"path":".env","content":"x"}' --policy policy.json

${COMMON}
  --policy FILE            Permission policy (JSON, see docs/permissions.md): a denied
                           call fails with TOOL_DENIED; "ask" is put to you on the
                           terminal, and denied (saying so) when stdin or stderr
                           is not a terminal
  --journal SPEC           Record the call: FILE.jsonl, FILE.sqlite, a postgres:// URL,
                           or "postgres" for the URL in TOOLSMITH_JOURNAL_URL
  --schema S               Schema of a PostgreSQL journal (default: toolsmith)
  --idempotency-key KEY    With --journal: the call's identity. The same key again
                           prints the recorded result and does not run the tool
  --json                   Print one JSON document: {"ok":true,"tool","result","exitCode"}
                           or {"ok":false,"tool","error":{"code","message","details"},
                           "exitCode"}; usage errors too (code E_CLI_USAGE)
  --stream                 Print bash's output as it arrives (the default when stdout
                           is a terminal); not with --json`,

  describe: `Usage: toolsmith describe [--provider P] [options]

Print the definitions of read, write, edit, grep and bash as a JSON array, one
entry per tool in the provider's shape.

  --provider P             jsonschema (default), openai, openai-responses,
                           anthropic, gemini or mcp
  --json                   Print {"ok":true,"provider","definitions","exitCode"} on one
                           line instead of the bare array; errors as JSON too
${COMMON}`,

  demo: `Usage: toolsmith demo [options]

Copy a small example project (a JS module with a bug and its node:test
tests) to a temporary folder and run a scripted agent turn on it: read and
grep in parallel, edit to fix the bug, then bash runs the tests. Prints every
event, call and duration, then the tool-call journal. No API key, no network.

  --keep                   Keep the temporary copy (its path is printed)
  --policy FILE            Run the turn under a permission policy (JSON, see
                           docs/permissions.md; paths relative to the copy): each
                           decision is printed and journaled; "ask" is put to you
                           on the terminal, and denied when stdin is not a terminal
  --json                   Print the run as one JSON document (events, result,
                           test output, journal rows) instead of text
${SANDBOX}
                           (the demo opts out by itself where bubblewrap is
                           unavailable, and says so)
  --max-output-bytes N     Largest output a tool handles (default: 200000)
  --timeout-ms N           Timeout of bash and grep calls (default: 60000)
  -h, --help               Show this help`,

  doctor: `Usage: toolsmith doctor [options]

Print what bash enforces on this machine with these options: the engine
(bubblewrap, unshare, direct or unavailable), the file system, the user's
credentials, the network, processes, and why a layer is missing. Exits 1 when
bash would refuse to run (the OS sandbox is unavailable).

  --root DIR               Sandbox root (default: the current directory)
${SANDBOX}
${HOST_VIEW}
  --json                   Print one JSON document: "ok", "platform", "root", "checks"
                           (one {"name","ok","detail"} per layer), "enforcement",
                           "exitCode"
  -h, --help               Show this help`,

  journal: `Usage: toolsmith journal migrate --postgres URL [options]
       toolsmith journal audit (--jsonl FILE | --sqlite FILE | --postgres URL) [options]
       toolsmith journal show (--jsonl FILE | --sqlite FILE | --postgres URL) [options]

migrate: create the schema and tables PostgresJournal uses (tool_calls,
tool_claims, turn_checkpoints, turn_checkpoint_deltas) if they do not exist,
and add the columns a newer toolsmith needs to tables an earlier one made
(rows are kept). Safe to run again, and from several workers at once.

audit: print every permission decision the journal recorded, one line per
call (time, run, tool and input, allow or deny, how: the policy, an
approver, an answer remembered from earlier in the turn, or nobody to ask;
the rule, reason, note and latency), then how many calls were allowed,
approved, remembered and denied.

show: list every call the journal recorded, grouped by run, node,
iteration and attempt, in seq order (time, tool, status, duration, the
permission decision, the idempotency key, input and result, clipped), then
the latest checkpoint of each turn (steps, done or resumable) and the counts.

On failure, print one line "CODE: message" (never the password) and exit with 1.

  --postgres URL           postgres://user:password@host:port/database
                           (default: the TOOLSMITH_JOURNAL_URL environment variable,
                           which keeps the password out of the process list)
  --schema S               The PostgreSQL schema (default: toolsmith)
  --print-sql              migrate: print the SQL instead of running it (for a DBA)
  --jsonl FILE             audit, show: a JsonlJournal file
  --sqlite FILE            audit, show: a SqliteJournal database
  --run ID                 audit, show: only this run
  --json                   audit: one JSON document { summary, decisions } instead of text;
                           show: one JSON document { rows, turns }
  -h, --help               Show this help`,
}
