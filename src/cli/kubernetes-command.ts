/**
 * `mailvolley kubernetes TARGET --shards N --image IMAGE [--start-in 2m] -- RUN-OPTIONS…`: the
 * manifests of one sharded run on stdout (or --out FILE), for `kubectl apply -f -`.
 */
import yargs, { type ArgumentsCamelCase, type Argv } from "yargs";
import { buildRunCommandConfig } from "../config/command-config.js";
import { LOAD_OPTIONS } from "../config/option-table.js";
import { parseDuration } from "../config/parse.js";
import {
  type KubernetesOptions,
  kubernetesOptions,
  manifestsToYaml,
  renderKubernetes,
} from "../deploy/kubernetes.js";
import { UsageError } from "../usage/usage-error.js";
import { withSuggestions } from "./did-you-mean.js";
import { EXIT } from "./exit-codes.js";
import { givenOptions, loadOptions } from "./load-options.js";
import { checkOutputPath, writeExport } from "./output.js";

type KubernetesArgv = ArgumentsCamelCase<Record<string, unknown>>;

const GROUP = "Kubernetes:";

/** Default lead time before the shards start: enough to pull the image and schedule N pods. */
const DEFAULT_START_IN = "2m";

const AUTH_SECRET_TEXT =
  "Secret whose key `auth` holds user:password; the shards read it as MAILVOLLEY_AUTH";

export const kubernetesCommand = {
  command: "kubernetes <target>",
  describe: "Render the Kubernetes manifests of a run sharded over N pods (options after --)",
  builder: (yargs: Argv) =>
    yargs
      // The `run` options after -- pass through as written: not parsed, not made numbers.
      .parserConfiguration({ "populate--": true, "parse-positional-numbers": false })
      .usage("$0 kubernetes <target> --shards N --image IMAGE [options] -- [run options]")
      .positional("target", { type: "string", describe: "SMTP server as the pods reach it" })
      .option("shards", {
        type: "string",
        describe: "Pods running one shard each (N)",
        group: GROUP,
      })
      .option("image", {
        type: "string",
        describe: "mailvolley image the cluster pulls",
        group: GROUP,
      })
      .option("start-at", {
        type: "string",
        describe: "When all shards start (epoch seconds or ISO 8601 with zone)",
        group: GROUP,
      })
      .option("start-in", {
        type: "string",
        describe: `Or: start this long after rendering [${DEFAULT_START_IN}]`,
        group: GROUP,
      })
      .option("name", {
        type: "string",
        describe: "Name of the Jobs and claim [mailvolley]",
        group: GROUP,
      })
      .option("namespace", { type: "string", describe: "Namespace [kubectl's]", group: GROUP })
      .option("storage-class", {
        type: "string",
        describe: "Storage class of the results volume; needs ReadWriteMany [cluster default]",
        group: GROUP,
      })
      .option("storage-size", {
        type: "string",
        describe: "Results volume size [1Gi]",
        group: GROUP,
      })
      .option("cpu", {
        type: "string",
        describe: "CPU per shard pod, requested = limit [1]",
        group: GROUP,
      })
      .option("memory", { type: "string", describe: "Memory per shard pod [1Gi]", group: GROUP })
      .option("merge-wait", {
        type: "string",
        describe: "The merge gives up this long after the start [1h]",
        group: GROUP,
      })
      .option("auth-secret", { type: "string", describe: AUTH_SECRET_TEXT, group: GROUP })
      .option("out", {
        type: "string",
        describe: "Write the YAML to FILE, not stdout",
        group: GROUP,
      })
      .demandOption(["shards", "image"]),
  handler: async (argv: KubernetesArgv) => {
    if (argv.startAt !== undefined && argv.startIn !== undefined) {
      throw new UsageError("--start-in", "give either --start-at or --start-in, not both");
    }
    const startAt =
      argv.startAt ??
      Math.ceil(
        (Date.now() + parseDuration("--start-in", argv.startIn ?? DEFAULT_START_IN)) / 1000,
      );
    const options = kubernetesOptions({
      name: argv.name as string | undefined,
      namespace: argv.namespace as string | undefined,
      authSecret: argv.authSecret as string | undefined,
      image: String(argv.image),
      target: String(argv.target),
      shards: argv.shards,
      startAt,
      runArgs: ((argv["--"] as unknown[] | undefined) ?? []).map(String),
      storageSize: argv.storageSize as string | undefined,
      storageClass: argv.storageClass as string | undefined,
      cpu: argv.cpu as string | undefined,
      memory: argv.memory as string | undefined,
      mergeWaitSeconds:
        argv.mergeWait === undefined
          ? undefined
          : Math.ceil(parseDuration("--merge-wait", argv.mergeWait) / 1000),
    });
    await checkRunArgs(options);
    if (argv.out !== undefined) checkOutputPath("--out", String(argv.out));
    const yaml = manifestsToYaml(renderKubernetes(options));
    if (argv.out === undefined) process.stdout.write(yaml);
    else if (!writeExport("--out", String(argv.out), yaml, "the manifests")) {
      process.exitCode = EXIT.failed;
    }
  },
};

/**
 * The run options after -- as every pod's `mailvolley run` will read them, checked here: a
 * typo or a split that leaves a shard idle is one line now, not N failed pods later. A plan
 * file is read in the pods (it lives in the image), so with --plan only the flags are checked.
 */
async function checkRunArgs(options: KubernetesOptions): Promise<void> {
  const argv = await loadOptions(yargs([...options.runArgs]))
    .strict()
    .help(false)
    .version(false)
    .exitProcess(false)
    .fail((message, error) => {
      if (error) throw error;
      const options = Object.keys(LOAD_OPTIONS);
      const line = withSuggestions(message.split("\n")[0], {
        commands: [],
        options,
        commandGiven: true,
      });
      throw new UsageError("--", `run options after --: ${line}`);
    })
    .parseAsync();
  if (argv._.length > 0) {
    throw new UsageError("--", `"${argv._[0]}" after --: give the target before --, once`);
  }
  const given = givenOptions(argv);
  if (given.plan !== undefined) return;
  // An --auth-file path is the pod's (a mounted Secret), and --auth-secret's value is read
  // there: neither is on this machine, so the check stands in a placeholder for them.
  const inPod = given.authFile !== undefined || options.authSecret !== null;
  const { authFile: _podPath, ...local } = given;
  const auth = inPod ? "user:password-in-the-pod" : local.auth;
  buildRunCommandConfig({ ...local, auth, target: options.target, shard: `0/${options.shards}` });
}
