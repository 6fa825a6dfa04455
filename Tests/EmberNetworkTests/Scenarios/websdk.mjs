// Scenarios of the official Firebase Web SDK (9.8.1, from ../shared/conformance) against a real
// `ember serve`: `node --experimental-websocket websdk.mjs PORT NAMESPACE SCENARIO [ARGS...]`.
// Each scenario checks what it sees and exits 0, or prints what differed and exits 1. The
// Swift test (WebSDKTests.swift) starts the server, copies the SDK next to this file's copy,
// and runs one scenario per test.
import { initializeApp, deleteApp } from './firebase-app.mjs';
import {
    getDatabase, connectDatabaseEmulator, ref, set, get, update, push, remove, onValue, onChildAdded,
    onChildChanged, onChildRemoved, onChildMoved, off, runTransaction, serverTimestamp, increment, onDisconnect,
    query, orderByChild, orderByKey, orderByValue, orderByPriority, startAt, startAfter, endAt, endBefore, equalTo,
    limitToFirst, limitToLast, goOffline, goOnline, setWithPriority,
} from './firebase-database.mjs';

const [port, ns, scenario, ...rest] = process.argv.slice(2);
const apps = [];
let appCount = 0;

function client(name = `app${appCount++}`) {
    const app = initializeApp({ databaseURL: `http://127.0.0.1:${port}?ns=${ns}`, projectId: 'demo-ember' }, name);
    apps.push(app);
    const db = getDatabase(app);
    connectDatabaseEmulator(db, '127.0.0.1', Number(port));
    return db;
}

function userClient(uid, claims = {}) {
    const app = initializeApp({ databaseURL: `http://127.0.0.1:${port}?ns=${ns}`, projectId: 'demo-ember' }, `user-${uid}-${appCount++}`);
    apps.push(app);
    const db = getDatabase(app);
    connectDatabaseEmulator(db, '127.0.0.1', Number(port), { mockUserToken: { sub: uid, user_id: uid, ...claims } });
    return db;
}

function check(condition, message) {
    if (!condition) throw new Error(message);
}

function same(actual, expected, what) {
    const a = JSON.stringify(actual), e = JSON.stringify(expected);
    if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function until(condition, what, ms = 5000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
        if (condition()) return;
        await sleep(10);
    }
    throw new Error(`timed out waiting for ${what}`);
}

function expectDenied(promise, what) {
    return promise.then(
        () => { throw new Error(`${what} was allowed`); },
        error => check(String(error.message || error).toLowerCase().includes('permission'), `${what}: ${error}`));
}

// Seeded random trees and queries for the query oracles: integer-like, odd and unicode keys
// (`keys`), every value type (`leaves`, objects), priorities; every order with every bound,
// endBefore and startAfter included, and limits. The same seed gives the same data and queries.
const orderMakers = { child: () => orderByChild('v'), key: orderByKey, value: orderByValue, priority: orderByPriority };
const boundMakers = { startAt, startAfter, endAt, endBefore, equalTo, limitToFirst, limitToLast };

function randomQueries(seed, keys, leaves) {
    const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
    const pick = list => list[Math.floor(random() * list.length)];
    const priorities = [undefined, undefined, 1, 2, -1, 0.5, 'a', 'b', 'A', '1', '10'];
    const randomData = () => {
        const data = {};
        for (let count = 5 + Math.floor(random() * 20), i = 0; i < count; i++) {
            let value;
            if (random() < 0.3) value = pick(leaves);
            else { value = { w: pick([1, 2, 'x']) }; const v = pick([null, ...leaves, { x: 1 }]); if (v !== null) value.v = v; }
            const priority = pick(priorities);
            if (priority !== undefined) value = typeof value === 'object' ? { ...value, '.priority': priority } : { '.value': value, '.priority': priority };
            data[pick(keys)] = value;
        }
        return data;
    };
    const bound = order => {
        if (order === 'key') return [pick(keys)];
        const value = order === 'priority' ? pick([null, 1, 2, 0.5, 'a', 'b', '10']) : pick([null, true, false, 0, 1, -1, 2.5, 'a', 'b', '1', '', 'zz', 'A']);
        return random() < 0.4 ? [value, pick(keys)] : [value];
    };
    // A query: its order, its calls after the order ([name, arguments]), the SDK's constraints
    // and a description.
    const randomQuery = () => {
        const order = pick(['child', 'key', 'value', 'priority']);
        const mode = pick(['start', 'end', 'range', 'equal', 'after', 'before', 'none']);
        const first = bound(order), second = bound(order);
        const calls = [];
        if (mode === 'start' || mode === 'range') calls.push(['startAt', first]);
        if (mode === 'after') calls.push(['startAfter', first]);
        if (mode === 'end' || mode === 'range') calls.push(['endAt', second]);
        if (mode === 'before') calls.push(['endBefore', second]);
        if (mode === 'equal') calls.push(['equalTo', first]);
        const limit = pick([0, 0, 1, 2, 3, 5]);
        if (limit) calls.push([random() < 0.5 ? 'limitToFirst' : 'limitToLast', [limit]]);
        return {
            order, calls,
            constraints: [orderMakers[order](), ...calls.map(([name, args]) => boundMakers[name](...args))],
            words: [order, ...calls.map(([name, args]) => name + JSON.stringify(args))].join(' '),
        };
    };
    return { random, pick, randomData, randomQuery };
}

const scenarios = {
    // Values and child events, in Firebase's order, seen by a second app.
    async events() {
        const writer = client(), reader = client();
        const log = [];
        const list = ref(reader, 'events/list');
        onChildAdded(list, (s, prev) => log.push(`added ${s.key} ${JSON.stringify(s.val())} after ${prev}`));
        onChildChanged(list, (s, prev) => log.push(`changed ${s.key} ${JSON.stringify(s.val())}`));
        onChildRemoved(list, s => log.push(`removed ${s.key}`));
        const values = [];
        onValue(list, s => values.push(s.val()));
        await until(() => values.length === 1, 'the first value');
        same(values[0], null, 'the first value of an empty location');
        await set(ref(writer, 'events/list/a'), 1);
        await set(ref(writer, 'events/list/b'), 2);
        await update(ref(writer, 'events/list'), { a: 10, c: 3 });
        await remove(ref(writer, 'events/list/b'));
        await until(() => log.length === 5, 'five child events');
        // Firebase raises an update's child_added before its child_changed (EventGenerator.ts).
        same(log, ['added a 1 after null', 'added b 2 after a', 'added c 3 after b', 'changed a 10', 'removed b'], 'child events');
        await until(() => JSON.stringify(values.at(-1)) === '{"a":10,"c":3}', 'the last value');
    },

    // set, update (multi-path), push, remove, priorities; read back by another app.
    async writes() {
        const a = client(), b = client();
        await set(ref(a, 'w/obj'), { x: 1, y: { z: 'deep' }, arr: [1, 2, 3] });
        await update(ref(a, 'w'), { 'obj/x': 2, 'other/k': true });
        const key = push(ref(a, 'w/list'), { n: 1 }).key;
        check(/^[-0-9A-Za-z_]{20}$/.test(key), `a push id: ${key}`);
        await setWithPriority(ref(a, 'w/prio'), 'p', 5);
        await remove(ref(a, 'w/other'));
        const snap = await get(ref(b, 'w'));
        same(snap.child('obj').val(), { arr: [1, 2, 3], x: 2, y: { z: 'deep' } }, 'the object');
        same(snap.child(`list/${key}`).val(), { n: 1 }, 'the pushed child');
        same(snap.child('prio').exportVal(), { '.value': 'p', '.priority': 5 }, 'a priority');
        check(!snap.child('other').exists(), 'removed');
    },

    // Every query: orders, ranges, limits, each checked against the values.
    async queries() {
        const a = client(), b = client();
        const data = {};
        for (let i = 0; i < 20; i++) data[`k${String(i).padStart(2, '0')}`] = { score: (i * 7) % 20, name: `n${i}` };
        await set(ref(a, 'q'), data);
        const keys = s => { const out = []; s.forEach(c => { out.push(c.key); }); return out; };
        const scores = Object.entries(data).sort((x, y) => x[1].score - y[1].score || (x[0] < y[0] ? -1 : 1)).map(e => e[0]);
        const q = ref(b, 'q');
        same(keys(await get(query(q, orderByChild('score'), limitToFirst(3)))), scores.slice(0, 3), 'limitToFirst');
        same(keys(await get(query(q, orderByChild('score'), limitToLast(3)))), scores.slice(-3), 'limitToLast');
        same(keys(await get(query(q, orderByChild('score'), startAt(15)))), scores.filter(k => data[k].score >= 15), 'startAt');
        same(keys(await get(query(q, orderByChild('score'), startAfter(15)))), scores.filter(k => data[k].score > 15), 'startAfter');
        same(keys(await get(query(q, orderByChild('score'), endAt(3)))), scores.filter(k => data[k].score <= 3), 'endAt');
        same(keys(await get(query(q, orderByChild('score'), endBefore(3)))), scores.filter(k => data[k].score < 3), 'endBefore');
        same(keys(await get(query(q, orderByChild('score'), equalTo(7)))), scores.filter(k => data[k].score === 7), 'equalTo');
        same(keys(await get(query(q, orderByKey(), startAt('k05'), endAt('k08')))), ['k05', 'k06', 'k07', 'k08'], 'key range');
        same(keys(await get(query(q, orderByKey(), startAfter('k17')))), ['k18', 'k19'], 'startAfter on keys');
        await set(ref(a, 'v'), { a: 3, b: 1, c: 2 });
        same(keys(await get(query(ref(b, 'v'), orderByValue(), limitToLast(2)))), ['c', 'a'], 'orderByValue');
        await set(ref(a, 'p'), { x: { '.value': 1, '.priority': 3 }, y: { '.value': 2, '.priority': 1 } });
        same(keys(await get(query(ref(b, 'p'), orderByPriority()))), ['y', 'x'], 'orderByPriority');
        // A live limited query: a child entering the window evicts another.
        const seen = [];
        onValue(query(ref(b, 'q'), orderByChild('score'), limitToLast(2)), s => seen.push(keys(s)));
        await until(() => seen.length === 1, 'the live query');
        await set(ref(a, 'q/new'), { score: 100 });
        await until(() => seen.length >= 2 && seen.at(-1).includes('new'), 'the window to move');
        same(seen.at(-1), [scores.at(-1), 'new'], 'the new window');
    },

    // Transactions from several apps on one counter: no update is lost.
    async contention() {
        const apps = [client(), client(), client(), client()];
        const each = 15;
        await Promise.all(apps.map(db => (async () => {
            for (let i = 0; i < each; i++) {
                // The SDK gives up on a transaction that lost 25 races in a row ('maxretry',
                // MAX_TRANSACTION_RETRIES in core/Repo.ts), without applying it: on a loaded
                // machine one app can lose that often to the other three (it failed CI so).
                // An app runs it again, as this one does (at most 5 times); every increment
                // must still commit exactly once, which the counter checks.
                for (let attempt = 1; ; attempt++) {
                    try {
                        const result = await runTransaction(ref(db, 'counter'), v => (v || 0) + 1);
                        check(result.committed, 'committed');
                        break;
                    } catch (error) {
                        if (error.message !== 'maxretry' || attempt >= 5) throw error;
                    }
                }
            }
        })()));
        same((await get(ref(client(), 'counter'))).val(), apps.length * each, 'the counter');
    },

    // Transactions on values the SDK hashes in its own way: every JSON type, unicode, escapes,
    // priorities, and numbers next to a power of two (the SDK's doubleToIEEE754String writes
    // 2^53 - 1 with 2^53's bits). Each commits on its first try once the app holds the value:
    // the server takes the hash the app sends for it.
    async transactionValues() {
        const a = client(), b = client();
        const values = {
            dbl: 1.5, neg: -2.25, tiny: 1e-7, huge: 1e300, pi: Math.PI, zero: 0,
            maxSafe: Number.MAX_SAFE_INTEGER, belowPower: 255.99999999999997, mersenne48: 281474976710655,
            belowOne: 0.9999999999999999, negMaxSafe: -Number.MAX_SAFE_INTEGER,
            text: 'héllo ✓ 𝄞', escapes: 'quote " back \\ nl \n tab \t ctrl \u0001', empty: '', flag: false,
            object: { 'ké y': 1, z: { y: 2.5, x: 'x' }, '-1': 1, '10': 2, '9': 3, a: true, m: Number.MAX_SAFE_INTEGER },
            list: [1, 'two', 3.5],
        };
        const held = new Set();
        for (const [key, value] of Object.entries(values)) {
            await set(ref(b, `tx/${key}`), value);
            onValue(ref(a, `tx/${key}`), snapshot => { if (snapshot.exists()) held.add(key); });
        }
        await setWithPriority(ref(b, 'tx/prioritized'), { x: 1 }, 255.99999999999997);
        onValue(ref(a, 'tx/prioritized'), snapshot => { if (snapshot.exists()) held.add('prioritized'); });
        await until(() => held.size === Object.keys(values).length + 1, 'the values held by the app');
        for (const key of [...Object.keys(values), 'prioritized']) {
            let calls = 0;
            const result = await runTransaction(ref(a, `tx/${key}`), current => { calls++; return current; });
            check(result.committed, `the transaction on ${key} committed`);
            same(calls, 1, `tries of the transaction on ${key}`);
        }
        // And one that changes a number next to a power of two, seen by the other app.
        const result = await runTransaction(ref(a, 'tx/maxSafe'), current => current - 1);
        check(result.committed, 'the decrement committed');
        same((await get(ref(b, 'tx/maxSafe'))).val(), Number.MAX_SAFE_INTEGER - 1, 'the decremented value');
    },

    // The server answers every query as the SDK itself computes it from the whole location:
    // app A listens to the location and evaluates each query from its cache; app B, which
    // holds nothing else, gets the same query answered (and then kept up to date) by the
    // server. Seeded random data (integer-like, unicode and odd keys; every value type;
    // priorities) and random queries under every order with every bound, endBefore and
    // startAfter included (the SDK writes them with a key's 786-character predecessor or
    // successor, or `[MIN_NAME]`: the server once refused those), and limits.
    async queryOracle() {
        const keys = ['0', '1', '2', '10', '-1', '-5', '007', 'a', 'b', 'A', 'Z', 'aa', 'ab', 'b0', 'k1', '1a', ' ', '~', 'é',
            '2147483647', '2147483648', '-2147483648', '-2147483649', '42', '9', 'z'];
        const { random, pick, randomData, randomQuery } = randomQueries(20261126, keys,
            [true, false, 0, 1, -1, 2.5, -3.75, 1e10, 'a', 'b', 'A', '', '1', '10', '2', 'zz']);
        const listed = snapshot => { const items = []; snapshot.forEach(c => { items.push([c.key, c.exportVal()]); }); return JSON.stringify(items); };
        const firstValue = q => new Promise((resolve, reject) => onValue(q, s => resolve(listed(s)), reject, { onlyOnce: true }));
        const a = client(), b = client();
        let compared = 0;
        for (let round = 0; round < 8; round++) {
            const path = `oracle/r${round}`, data = randomData();
            await set(ref(a, path), data);
            const stop = onValue(ref(a, path), () => {});
            for (let i = 0; i < 40; i++) {
                const { constraints, words } = randomQuery();
                const local = await firstValue(query(ref(a, path), ...constraints));
                const server = await firstValue(query(ref(b, path), ...constraints)).catch(error => `cancelled: ${error.message}`);
                same(server, local, `${words} over ${JSON.stringify(data)}`);
                compared++;
            }
            stop();
        }
        // Live: B's listens are kept up to date by the server while A writes. What B ends with
        // is compared with A's answer computed afresh from the whole location (a view the SDK
        // keeps up to date itself can go wrong: its limit window once lost a child that A
        // never touched, where the server-fed view was right).
        for (let round = 0; round < 10; round++) {
            const path = `oracle/live${round}`;
            await set(ref(a, path), randomData());
            const stop = onValue(ref(a, path), () => {});
            const views = [];
            for (let i = 0; i < 6; i++) {
                const { constraints, words } = randomQuery();
                const view = { words, constraints, server: null };
                view.stop = onValue(query(ref(b, path), ...constraints), s => { view.server = listed(s); }, e => { view.server = `cancelled: ${e.message}`; });
                views.push(view);
            }
            const writes = [];
            for (let w = 0; w < 15; w++) {
                const key = pick(keys), choice = random(), one = randomData(), first = Object.keys(one)[0];
                if (choice < 0.2) writes.push(set(ref(a, `${path}/${key}`), null));
                else if (choice < 0.7) writes.push(set(ref(a, `${path}/${key}`), one[first]));
                else writes.push(update(ref(a, path), Object.fromEntries(Object.keys(one).slice(0, 3).map(k => [k, one[k]]))));
            }
            await Promise.all(writes);
            for (const view of views) view.local = await firstValue(query(ref(a, path), ...view.constraints));
            await until(() => views.every(v => v.local === v.server), 'the server-driven views to catch up', 5000).catch(() => {});
            for (const view of views) {
                same(view.server, view.local, `live ${view.words}`);
                view.stop();
                compared++;
            }
            stop();
        }
        check(compared === 380, `compared ${compared} queries`);
    },

    // Ember's own client against the SDK: writes DIRECTORY/queries-server.lua and
    // DIRECTORY/queries-client.lua (Ember's Lua, run by `ember --memory` by the Swift test)
    // and DIRECTORY/queries-expected.txt, the keys of each query in order as this SDK computes
    // them (from a location it holds whole, served by `ember serve`). The first script asks
    // Ember's server (get), the second Ember's client offline, from its cache. Keys use the
    // SDK's push characters only: for a key with another character, its endBefore and
    // startAfter are not what they say (its `predecessor` of " " is 785 z's), where Ember's
    // bounds are exact (ARCHITECTURE §8).
    async queryScript() {
        const { writeFileSync } = await import('fs');
        const [directory] = rest;
        const keys = ['0', '1', '2', '10', '-1', '-5', '007', 'a', 'b', 'A', 'Z', 'aa', 'ab', 'b0', 'k1', '1a', '_', '-a', 'z-',
            '2147483647', '2147483648', '-2147483648', '-2147483649', '42', '9', 'z'];
        const { randomData, randomQuery } = randomQueries(424242, keys,
            [true, false, 0, 1, -1, 2.5, -3.75, 1e10, 'a', 'b', 'A', '', '1', '10', '2', 'zz', 'é ~']);
        const lua = value => {
            if (value === null) return 'nil';
            if (typeof value === 'string') return '"' + [...Buffer.from(value, 'utf8')].map(b => (b >= 32 && b < 127 && b !== 34 && b !== 92) ? String.fromCharCode(b) : '\\' + String(b).padStart(3, '0')).join('') + '"';
            if (typeof value !== 'object') return String(value);
            return '{' + Object.entries(value).map(([k, v]) => `[${lua(k)}]=${lua(v)}`).join(', ') + '}';
        };
        const a = client();
        const listed = snapshot => { const items = []; snapshot.forEach(c => { items.push(c.key); }); return items.join('|'); };
        const lines = [], expected = [];
        for (let round = 0; round < 10; round++) {
            const path = `script/r${round}`, data = randomData();
            await set(ref(a, path), data);
            onValue(ref(a, path), () => {});
            lines.push(`assert(db:ref("${path}"):set(${lua(data)}):wait())`, `c2:ref("${path}"):on("value", function() end)`);
            for (let i = 0; i < 30; i++) {
                const { order, calls, constraints } = randomQuery();
                const luaCalls = [{ child: ':orderByChild("v")', key: ':orderByKey()', value: ':orderByValue()', priority: ':orderByPriority()' }[order],
                    ...calls.map(([name, args]) => `:${name}(${args.map(lua).join(', ')})`)];
                expected.push(await new Promise((resolve, reject) => onValue(query(ref(a, path), ...constraints), s => resolve(listed(s)), reject, { onlyOnce: true })));
                lines.push(`emit(CLIENT:ref("${path}")${luaCalls.join('')})`);
            }
        }
        const emit = 'local function emit(q) local snap = q:get() local k = {} for child in snap:children() do k[#k + 1] = child.key end print(table.concat(k, "|")) end';
        const setup = lines.filter(l => !l.startsWith('emit('));
        const asks = lines.filter(l => l.startsWith('emit('));
        writeFileSync(`${directory}/queries-server.lua`, [emit, 'local c2 = ember.client("c2")', ...setup, ...asks.map(l => l.replace('CLIENT', 'db'))].join('\n') + '\n');
        writeFileSync(`${directory}/queries-client.lua`, [emit, 'local c2 = ember.client("c2")', ...setup, 'ember.flush()', 'c2:goOffline()', ...asks.map(l => l.replace('CLIENT', 'c2'))].join('\n') + '\n');
        writeFileSync(`${directory}/queries-expected.txt`, expected.join('\n') + '\n');
        check(expected.length === 300, `${expected.length} queries`);
    },

    // endBefore('😀') under key order: the SDK sends the key's predecessor, which starts with
    // the emoji's first UTF-16 unit alone. No key can hold that: the listen is cancelled with an
    // error, and the connection stays (it was closed, and the SDK sent the listen again on each
    // reconnection while the app's other requests waited).
    async unpairedSurrogate() {
        const a = client(), b = client();
        await set(ref(a, 'emoji'), { a: 1, '中': 2, '😀': 3 });
        const answer = await new Promise(resolve => onValue(query(ref(b, 'emoji'), orderByKey(), endBefore('😀')),
            () => resolve('a value'), error => resolve(`cancelled: ${error.message}`), { onlyOnce: true }));
        check(answer.startsWith('cancelled: invalid_query'), `the listen: ${answer}`);
        same((await get(ref(b, 'emoji/a'))).val(), 1, 'a read on the same connection after it');
        const keys = s => { const out = []; s.forEach(c => { out.push(c.key); }); return out; };
        same(keys(await get(query(ref(b, 'emoji'), orderByKey(), endBefore('中')))), ['a'], 'endBefore a CJK key');
    },

    // serverTimestamp and increment, resolved by the server.
    async serverValues() {
        const a = client(), b = client();
        const before = Date.now();
        await set(ref(a, 'sv/ts'), serverTimestamp());
        await Promise.all([1, 2, 3, 4, 5].map(() => set(ref(a, 'sv/n'), increment(2))));
        await update(ref(b, 'sv'), { n: increment(0.5) });
        const snap = await get(ref(b, 'sv'));
        check(Math.abs(snap.child('ts').val() - before) < 10000, `a timestamp: ${snap.child('ts').val()}`);
        same(snap.child('n').val(), 10.5, 'the increments');
    },

    // onDisconnect: set, update, remove and cancel, fired when the app goes away.
    async onDisconnect() {
        const watcher = client();
        const presence = client();
        await set(ref(presence, 'od/keep'), 'me');
        await onDisconnect(ref(presence, 'od/status')).set('offline');
        await onDisconnect(ref(presence, 'od/meta')).update({ left: true });
        await onDisconnect(ref(presence, 'od/keep')).remove();
        await onDisconnect(ref(presence, 'od/cancelled')).set('never');
        await onDisconnect(ref(presence, 'od/cancelled')).cancel();
        await set(ref(presence, 'od/status'), 'online');
        const values = [];
        onValue(ref(watcher, 'od'), s => values.push(s.val()));
        await until(() => values.length && values.at(-1)?.status === 'online', 'online');
        goOffline(presence);
        await until(() => values.at(-1)?.status === 'offline', 'the onDisconnect writes');
        same(values.at(-1), { meta: { left: true }, status: 'offline' }, 'after the disconnect');
    },

    // Started by the test as a second process, killed with SIGKILL: registers its onDisconnect,
    // says "ready", and waits to die.
    async presence() {
        const db = client();
        await onDisconnect(ref(db, `presence/${rest[0]}`)).set({ online: false, at: serverTimestamp() });
        await set(ref(db, `presence/${rest[0]}`), { online: true });
        console.log('ready');
        await new Promise(() => {});
    },

    // Watches for the killed process's onDisconnect.
    async presenceWatch() {
        const db = client();
        const values = [];
        onValue(ref(db, `presence/${rest[0]}`), s => values.push(s.val()));
        await until(() => values.at(-1)?.online === false, 'the killed app to go offline', 20000);
        check(typeof values.at(-1).at === 'number', 'a server timestamp');
    },

    // .info/connected and .info/serverTimeOffset; goOffline/goOnline with queued writes.
    async offline() {
        const a = client(), b = client();
        const connected = [];
        onValue(ref(a, '.info/connected'), s => connected.push(s.val()));
        await until(() => connected.at(-1) === true, 'connected');
        const offsets = [];
        onValue(ref(a, '.info/serverTimeOffset'), s => offsets.push(s.val()));
        await until(() => offsets.length, 'the server time offset');
        check(typeof offsets[0] === 'number' && Math.abs(offsets[0]) < 5000, `serverTimeOffset ${offsets[0]}`);
        // Listened to first: offline, a location the client knows nothing of has no value.
        const local = [];
        onValue(ref(a, 'off'), s => local.push(s.val()));
        await until(() => local.length, 'the first value');
        goOffline(a);
        await until(() => connected.at(-1) === false, 'disconnected');
        const pending = [set(ref(a, 'off/one'), 1), set(ref(a, 'off/two'), 2), update(ref(a, 'off'), { three: 3 })];
        await until(() => local.length === 4, 'the local values');
        same(local.at(-1), { one: 1, three: 3, two: 2 }, 'the optimistic value offline');
        same((await get(ref(b, 'off'))).val(), null, 'nothing on the server yet');
        goOnline(a);
        await Promise.all(pending);
        same((await get(ref(b, 'off'))).val(), { one: 1, three: 3, two: 2 }, 'the queued writes, on the server');
    },

    // Auth and rules (the test loads rules: users write only their own /users/$uid).
    async rules() {
        const alice = userClient('alice', { email: 'a@x' });
        const bob = userClient('bob');
        const anonymous = client();
        await set(ref(alice, 'users/alice'), { name: 'Alice' });
        await expectDenied(set(ref(bob, 'users/alice/name'), 'Mallory'), "bob writing alice's data");
        await expectDenied(set(ref(anonymous, 'users/alice'), null), 'an anonymous write');
        same((await get(ref(bob, 'users/alice/name'))).val(), 'Alice', 'readable by a signed-in user');
        await expectDenied(get(ref(anonymous, 'users')), 'an anonymous read');
        // A denied write reverts on the writer, with events.
        const seen = [];
        onValue(ref(bob, 'users/alice/name'), s => seen.push(s.val()));
        await until(() => seen.length === 1, "bob's listener");
        await set(ref(bob, 'users/alice/name'), 'Eve').catch(() => {});
        await until(() => seen.at(-1) === 'Alice', 'the revert');
        same(seen, ['Alice', 'Eve', 'Alice'], 'the optimistic value and its revert');
        // A listen the rules refuse is cancelled.
        const cancelled = new Promise(resolve => onValue(ref(anonymous, 'users'), () => {}, error => resolve(String(error))));
        check((await cancelled).includes('permission'), 'the cancelled listen');
    },
};

const timer = setTimeout(() => { console.error(`scenario ${scenario} timed out`); process.exit(1); }, 60000);
try {
    if (!scenarios[scenario]) throw new Error(`no scenario ${scenario}`);
    await scenarios[scenario]();
    clearTimeout(timer);
    for (const app of apps) await deleteApp(app);
    console.log(`ok ${scenario}`);
    process.exit(0);
} catch (error) {
    console.error(`FAILED ${scenario}: ${error.stack || error}`);
    process.exit(1);
}
