/** A Redis the tests may use: the one at `REDIS_URL`, or a server started for them. */
export interface TestRedis {
    url: string;
    /** True when the tests started this server (and may do anything to it). */
    owned: boolean;
    stop(): Promise<void>;
}
/** A server started by the harness. */
export interface RedisServer extends TestRedis {
    port: number;
    owned: true;
}
/** A three-node (by default) Redis Cluster started by the harness. */
export interface RedisClusterServers {
    ports: number[];
    /** `{ url }` of every node, for `createCluster({ rootNodes })`. */
    rootNodes: {
        url: string;
    }[];
    stop(): Promise<void>;
}
/** A port nobody listens on right now (the OS picks it). */
export declare function freePort(): Promise<number>;
/** Runs `redis-cli -p port …args` and returns its output. */
export declare function redisCli(port: number, args: string[]): Promise<string>;
/**
 * Starts `redis-server` on a free loopback port, without persistence, in a temporary directory.
 * Needs Debian's `redis-server` and `redis-cli` on PATH (or REDIS_SERVER_BIN / REDIS_CLI_BIN).
 */
export declare function startRedisServer({ args }?: {
    args?: string[];
}): Promise<RedisServer>;
/** The Redis at `REDIS_URL` when set (never stopped by the tests), else a fresh server. */
export declare function testRedis(): Promise<TestRedis>;
/** Starts `nodes` cluster-enabled servers on loopback, joins them into one cluster and waits until it is ok. */
export declare function startRedisCluster({ nodes, }?: {
    nodes?: number;
}): Promise<RedisClusterServers>;
