import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { OracleError } from "@oracle/spec";
import type { ConnectionOptions, Queue, QueueEvents } from "bullmq";
import { z } from "zod";

/** The BullMQ queue every oracle worker consumes and every batch enqueues to. */
export const QUEUE_NAME = "oracle-grade";

const QueueUrlSchema = z
  .url({ protocol: /^rediss?$/, error: "must be a redis://HOST:PORT URL" })
  .transform((text) => new URL(text));

/**
 * Connection options for BullMQ from `redis://[user:password@]HOST:PORT[/DB]` (`rediss://` for TLS).
 * `maxRetriesPerRequest: null` lets workers ride out a Redis restart instead of failing commands.
 */
export function queueConnection(url: string): ConnectionOptions {
  const parsed = QueueUrlSchema.safeParse(url);
  if (!parsed.success)
    throw new OracleError("USAGE", `--queue ${url}: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
      hint: "e.g. --queue redis://127.0.0.1:6379",
    });
  const u = parsed.data;
  const db = u.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new OracleError("USAGE", `--queue ${url}: the path must be a database number`, {
      hint: "e.g. redis://127.0.0.1:6379/0",
    });
  return {
    host: u.hostname,
    port: u.port === "" ? 6379 : Number(u.port),
    ...(db !== "" ? { db: Number(db) } : {}),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

/** The URL without its password, for output. */
export function redactQueueUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}

/** TLS errors no retry mends: the server's certificate is not one this process trusts. */
const UNTRUSTED_CERTIFICATE = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "CERT_UNTRUSTED",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * What a Redis client's error means when retrying cannot mend it (an untrusted TLS certificate, a
 * wrong or missing password), as an OracleError with a hint that works; null for the rest.
 */
export function fatalQueueError(error: Error & { code?: string }, url: string): OracleError | null {
  const where = `Redis at ${redactQueueUrl(url)}`;
  if (error.code !== undefined && UNTRUSTED_CERTIFICATE.has(error.code))
    return new OracleError(
      "INFRA_ERROR",
      `${where}: its TLS certificate is not trusted here (${error.code}: ${error.message})`,
      {
        hint: "give every oracle process that reaches the queue the CA that signed it (NODE_EXTRA_CA_CERTS=/path/ca.pem), and name the host as the certificate does in --queue",
      },
    );
  if (/^(WRONGPASS|NOAUTH)\b/.test(error.message))
    return new OracleError("INFRA_ERROR", `${where} refused the connection: ${error.message.trim()}`, {
      hint: "put the password (and the user, for an ACL user) in --queue: rediss://USER:PASSWORD@HOST:PORT, with special characters percent-encoded",
    });
  return null;
}

/** A BullMQ client: a Queue, QueueEvents or Worker. */
interface Client {
  waitUntilReady(): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Waits until every client reaches Redis. Fails at once on an error retrying cannot mend
 * (fatalQueueError), or after `limitMs` with what Redis last said instead of hanging on a wrong URL.
 */
export async function untilReady(
  clients: readonly Client[],
  url: string,
  options: { signal?: AbortSignal; limitMs?: number } = {},
): Promise<void> {
  const heard: { last: (Error & { code?: string }) | null } = { last: null };
  let fail: (error: OracleError) => void = () => undefined;
  const fatal = new Promise<never>((_, reject) => {
    fail = reject;
  });
  fatal.catch(() => undefined);
  for (const client of clients)
    client.on("error", (error: Error & { code?: string }) => {
      heard.last = error;
      const known = fatalQueueError(error, url);
      if (known) fail(known);
    });
  const limit = AbortSignal.timeout(options.limitMs ?? 15_000);
  const stop = options.signal ? AbortSignal.any([limit, options.signal]) : limit;
  const settled = new AbortController();
  try {
    if (!stop.aborted)
      await Promise.race([
        Promise.all(clients.map((c) => c.waitUntilReady())),
        fatal,
        once(stop, "abort", { signal: settled.signal }).catch(() => undefined),
      ]);
  } finally {
    settled.abort();
  }
  options.signal?.throwIfAborted();
  if (limit.aborted) {
    const said = heard.last;
    const plainToTls = said?.code === "ECONNRESET" && url.startsWith("redis:");
    throw new OracleError(
      "INFRA_ERROR",
      `Redis at ${redactQueueUrl(url)} does not answer (${Math.round((options.limitMs ?? 15_000) / 1000)} s)${said ? `; it last said: ${said.code ? `${said.code} ` : ""}${said.message}` : ""}`,
      {
        hint: plainToTls
          ? "the server closed the connection: if that port speaks TLS, use rediss:// in --queue"
          : "check --queue, and that redis-server runs there",
      },
    );
  }
}

/** Closes a queue client; one that cannot reach Redis is disconnected after 3 s instead of hanging. */
export async function closeWithin(client: Queue | QueueEvents): Promise<void> {
  const settled = new AbortController();
  const closed = await Promise.race([
    client.close().then(
      () => "closed" as const,
      () => "closed" as const,
    ),
    delay(3000, "late" as const, { signal: settled.signal }).catch(() => "closed" as const),
  ]);
  settled.abort();
  if (closed === "late") void client.disconnect().catch(() => undefined);
}

/** Whether Redis at `url` can be reached and used, checked with a client of its own before a worker starts. */
export async function probeQueue(url: string): Promise<void> {
  // bullmq is loaded when a queue is used, not at every CLI's start.
  const { Queue } = await import("bullmq");
  const queue = new Queue(QUEUE_NAME, { connection: queueConnection(url) });
  try {
    await untilReady([queue], url);
  } finally {
    await closeWithin(queue);
  }
}
