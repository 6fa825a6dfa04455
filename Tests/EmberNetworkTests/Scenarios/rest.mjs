// Firebase's REST API and event streams against a real `ember serve`, with Node's fetch:
// `node rest.mjs PORT NAMESPACE SCENARIO`. Statuses, bodies and headers as Firebase's clients
// expect them (../shared/reference/firebase-network.md §1, §2). Exits 0 after "ok SCENARIO".
import net from 'node:net';

const [port, ns, scenario] = process.argv.slice(2);
const base = `http://127.0.0.1:${port}`;
const owner = { Authorization: 'Bearer owner' };

function same(actual, expected, what) {
    const a = JSON.stringify(actual), e = JSON.stringify(expected);
    if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

async function call(method, path, { body, headers = {}, params = '' } = {}) {
    const separator = path.includes('?') ? '&' : '?';
    const response = await fetch(`${base}${path}${separator}ns=${ns}${params}`, {
        method, headers, body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)),
    });
    const text = await response.text();
    let json;
    try { json = text === '' ? undefined : JSON.parse(text); } catch { json = text; }
    return { status: response.status, json, text, headers: response.headers };
}

function mockToken(uid) {
    const encode = object => Buffer.from(JSON.stringify(object)).toString('base64url');
    return `${encode({ alg: 'none', type: 'JWT' })}.${encode({ sub: uid, user_id: uid, iat: 0, exp: 3600 })}.`;
}

const scenarios = {
    async basics() {
        same((await call('GET', '/nothing.json')).json, null, 'an absent location is null, not 404');
        const put = await call('PUT', '/a/b.json', { body: { x: 1, y: [1, 2] } });
        same([put.status, put.json], [200, { x: 1, y: [1, 2] }], 'PUT echoes');
        same((await call('GET', '/a/b/.json')).json, { x: 1, y: [1, 2] }, 'a/b/.json is a/b');
        const post = await call('POST', '/list.json', { body: '"first"' });
        if (!/^[-0-9A-Za-z_]{20}$/.test(post.json.name)) throw new Error(`a push id: ${post.text}`);
        same((await call('GET', `/list/${post.json.name}.json`)).json, 'first', 'the pushed value');
        same((await call('PATCH', '/a.json', { body: { 'b/x': 2, c: true } })).json, { 'b/x': 2, c: true }, 'PATCH echoes');
        same((await call('GET', '/a.json')).json, { b: { x: 2, y: [1, 2] }, c: true }, 'after PATCH');
        same((await call('PUT', '/a/c.json', { params: '&print=silent', body: false })).status, 204, 'print=silent');
        same((await call('POST', '/a/c.json', { headers: { 'X-HTTP-Method-Override': 'DELETE' } })).json, null, 'method override');
        same((await call('DELETE', '/a/b/y.json')).json, null, 'DELETE');
        same((await call('GET', '/a.json')).json, { b: { x: 2 } }, 'after DELETE');
        same((await call('GET', '/a.json', { params: '&shallow=true' })).json, { b: true }, 'shallow');
        await call('PUT', '/p.json', { body: { '.value': 1, '.priority': 'high' } });
        same((await call('GET', '/p.json', { params: '&format=export' })).json, { '.value': 1, '.priority': 'high' }, 'format=export');
        same((await call('PUT', '/ts.json', { body: { '.sv': 'timestamp' } })).status, 200, 'a server value');
        const ts = (await call('GET', '/ts.json')).json;
        if (typeof ts !== 'number' || Math.abs(ts - Date.now()) > 10000) throw new Error(`a timestamp: ${ts}`);
        const pretty = await call('GET', '/a.json', { params: '&print=pretty' });
        if (!pretty.text.includes('\n')) throw new Error('print=pretty is indented');
        // With no rules in force, as the emulator: anyone is told the namespaces (the Emulator
        // UI asks without a credential).
        const listed = await call('GET', '/.inspect/databases.json');
        same([listed.status, listed.json.map(entry => entry.name).includes(ns)], [200, true], 'the namespaces, to anyone');
    },

    async errors() {
        const badPath = await call('GET', '/a$b.json');
        same([badPath.status, badPath.json], [400, { error: 'Invalid path: Invalid token in path' }], 'a bad path');
        const badJSON = await call('PUT', '/x.json', { body: '{not json' });
        same([badJSON.status, badJSON.json], [400, { error: "Invalid data; couldn't parse JSON object, array, or value." }], 'bad JSON');
        // Firebase's words, with where the key begins (line:column).
        same((await call('PUT', '/x.json', { body: '{"ok": 1,\n "in": {"a.b": 1}}' })).json,
            { error: "Invalid data; couldn't parse key beginning at 2:9. Key value can't be empty or contain $ # [ ] / or ." }, 'a bad key');
        same((await call('GET', '/x')).status, 404, 'no .json');
        same((await call('GET', '/x.json', { params: '&orderBy=height' })).json, { error: 'orderBy must be a valid JSON encoded path' }, 'orderBy not JSON');
        same((await call('GET', '/x.json', { params: '&orderBy="$key"&startAt=5' })).json, { error: 'Provided key index type is invalid, must be string' }, '$key with a number');
        same((await call('GET', '/x.json', { params: '&auth=garbage' })).json, { error: 'Could not parse auth token.' }, 'a bad token');
        same((await call('PATCH', '/x.json', { body: { a: 1, 'a/b': 2 } })).status, 400, 'overlapping PATCH paths');
        same((await call('PATCH', '/x.json', { body: [1, 2] })).status, 400, 'PATCH with an array');
        same((await call('GET', '/.settings/rules.json')).json, { error: 'Permission denied' }, 'rules need an administrator');
        same((await call('PUT', '/x.json', { body: 'x'.repeat(17 << 20) })).status, 413, 'a body past the limit');
        // timeout= (reads) and writeSizeLimit= (writes): good values work, bad ones are refused.
        for (const good of ['1s', '250ms', '15min']) same((await call('GET', '/x.json', { params: `&timeout=${good}` })).status, 200, `timeout=${good}`);
        for (const bad of ['abc', '0s', '16min', '5h', '-1ms']) same((await call('GET', '/x.json', { params: `&timeout=${bad}` })).status, 400, `timeout=${bad}`);
        for (const good of ['tiny', 'small', 'medium', 'large', 'unlimited']) same((await call('PUT', '/x.json', { body: 1, params: `&writeSizeLimit=${good}` })).status, 200, `writeSizeLimit=${good}`);
        same((await call('PUT', '/x.json', { body: 1, params: '&writeSizeLimit=huge' })).status, 400, 'writeSizeLimit=huge');
        // The server goes on after all that.
        same((await call('PUT', '/x.json', { body: 1 })).status, 200, 'still serving');
    },

    async queries() {
        const data = {};
        for (let i = 0; i < 10; i++) data[`k${i}`] = { h: i % 4, n: i };
        await call('PUT', '/q.json', { body: data });
        const keys = async params => Object.keys((await call('GET', '/q.json', { params })).json || {}).sort();
        same(await keys('&orderBy="h"&equalTo=1'), ['k1', 'k5', 'k9'], 'equalTo');
        same(await keys('&orderBy="h"&startAt=3'), ['k3', 'k7'], 'startAt');
        same(await keys('&orderBy="n"&limitToLast=2'), ['k8', 'k9'], 'limitToLast');
        same(await keys('&orderBy="$key"&startAt="k7"&limitToFirst=2'), ['k7', 'k8'], 'key range');
        same(await keys('&orderBy="n"&startAt=2&endAt=4'), ['k2', 'k3', 'k4'], 'a range');
        same(await keys('&limitToFirst=2'), ['k0', 'k1'], 'limitToFirst alone orders by key (as the emulator)');
        same(await keys('&orderBy="h"&startAt=1,"k5"&endAt=1'), ['k5', 'k9'], 'a bound with a key');
    },

    async etags() {
        await call('PUT', '/e.json', { body: { v: 1 } });
        const first = await call('GET', '/e.json', { headers: { 'X-Firebase-ETag': 'true' } });
        const etag = first.headers.get('etag');
        if (!etag) throw new Error('no ETag');
        same((await call('GET', '/e.json', { headers: { 'if-none-match': etag } })).status, 304, 'if-none-match');
        const stale = await call('PUT', '/e.json', { body: { v: 2 }, headers: { 'if-match': 'wrong' } });
        same([stale.status, stale.json, stale.headers.get('etag')], [412, { v: 1 }, etag], '412 with the current value');
        const done = await call('PUT', '/e.json', { body: { v: 2 }, headers: { 'if-match': etag } });
        same(done.status, 200, 'a matching if-match');
        if (!done.headers.get('etag') || done.headers.get('etag') === etag) throw new Error('the new ETag');
        same((await call('GET', '/none.json', { headers: { 'X-Firebase-ETag': 'true' } })).headers.get('etag'), 'null_etag', 'null_etag');
        same((await call('PUT', '/created.json', { body: 1, headers: { 'if-match': 'null_etag' } })).status, 200, 'create if absent');
        same((await call('PUT', '/created.json', { body: 2, headers: { 'if-match': 'null_etag' } })).status, 412, 'not twice');
    },

    async rules() {
        const rules = '{\n  // comments are allowed\n  "rules": {\n    "users": { "$uid": { ".read": "auth != null", ".write": "$uid === auth.uid" } }\n  }\n}';
        same((await call('PUT', '/.settings/rules.json', { body: rules, headers: owner })).status, 200, 'rules upload');
        same((await call('GET', '/.settings/rules.json', { headers: owner })).text, rules, 'the source, comments and all');
        same((await call('GET', '/.settings/rules.json', { headers: owner, params: '&format=strict' })).json,
            { rules: { users: { $uid: { '.read': 'auth != null', '.write': '$uid === auth.uid' } } } }, 'format=strict');
        const broken = await call('PUT', '/.settings/rules.json', { body: '{"rules": {".read": "auth.uid ==="}}', headers: owner });
        same(broken.status, 400, 'rules that do not compile');
        if (!/1:\d+/.test(broken.json.error)) throw new Error(`the error names line:column: ${broken.text}`);
        same((await call('PUT', '/users/alice.json', { body: { n: 1 } })).json, { error: 'Permission denied' }, 'anonymous write');
        same((await call('PUT', '/users/alice.json', { body: { n: 1 }, params: `&auth=${mockToken('alice')}` })).status, 200, "alice's own");
        same((await call('PUT', '/users/alice.json', { body: 2, params: `&auth=${mockToken('bob')}` })).status, 401, "bob writing alice's");
        same((await call('GET', '/users/alice.json', { params: `&auth=${mockToken('bob')}` })).json, { n: 1 }, 'bob reading');
        same((await call('PUT', '/users/alice.json', { body: 3, headers: owner })).status, 200, 'the administrator');
        const override = encodeURIComponent(JSON.stringify({ uid: 'bob' }));
        same((await call('PUT', '/users/alice.json', { body: 4, headers: owner, params: `&auth_variable_override=${override}` })).status, 401, 'an override');
        same((await call('GET', '/users/alice.json', { headers: owner, params: '&auth_variable_override=null' })).status, 401, 'a null override');
    },

    async stream() {
        await call('PUT', '/s.json', { body: { a: 1 } });
        const controller = new AbortController();
        const response = await fetch(`${base}/s.json?ns=${ns}`, { headers: { Accept: 'text/event-stream' }, signal: controller.signal });
        same(response.headers.get('content-type').startsWith('text/event-stream'), true, 'the content type');
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        const events = [];
        const pump = (async () => {
            for (;;) {
                const { value, done } = await reader.read();
                if (done) return;
                buffer += decoder.decode(value, { stream: true });
                let end;
                while ((end = buffer.indexOf('\n\n')) >= 0) {
                    const block = buffer.slice(0, end);
                    buffer = buffer.slice(end + 2);
                    const [eventLine, dataLine] = block.split('\n');
                    events.push({ event: eventLine.slice('event: '.length), data: JSON.parse(dataLine.slice('data: '.length)) });
                }
            }
        })().catch(() => {});
        const until = async (count, what) => {
            const deadline = Date.now() + 5000;
            while (events.length < count && Date.now() < deadline) await new Promise(r => setTimeout(r, 10));
            if (events.length < count) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(events)}`);
        };
        await until(1, 'the first put');
        same(events[0], { event: 'put', data: { path: '/', data: { a: 1 } } }, 'the first event');
        const pushed = await call('POST', '/s.json', { body: '""' });
        await until(2, "the push's put");
        same(events[1], { event: 'put', data: { path: `/${pushed.json.name}`, data: '' } }, "the push's event");
        await call('PATCH', '/s.json', { body: { a: 2, 'b/c': 3 } });
        await until(3, 'the patch');
        same(events[2].event, 'patch', 'a PATCH is a patch event');
        same(events[2].data, { path: '/', data: { a: 2, 'b/c': 3 } }, "the patch's data");
        await call('PUT', '/.json', { body: { s: 'gone' }, headers: owner });
        await until(4, 'a write above');
        same(events[3], { event: 'put', data: { path: '/', data: 'gone' } }, 'a write above the stream');
        controller.abort();
        await pump;
    },

    async hostileHTTP() {
        // Raw bytes that are not HTTP, a truncated request, a huge header: each answered or
        // closed, and the server goes on.
        const send = bytes => new Promise(resolve => {
            const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(bytes));
            let answer = '';
            socket.on('data', data => { answer += data; });
            socket.on('close', () => resolve(answer));
            socket.on('error', () => resolve(answer));
            setTimeout(() => { socket.destroy(); resolve(answer); }, 3000);
        });
        await send('\x00\x01\x02garbage\r\n\r\n');
        await send('GET /a.json HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort');
        await send(`GET /a.json HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(200000)}\r\n\r\n`);
        await send('PUT /a.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
        await send('GET /../../etc/passwd.json HTTP/1.1\r\nHost: x\r\n\r\n');
        await send('GET /%ZZ%00.json HTTP/1.1\r\nHost: x\r\n\r\n');
        for (let i = 0; i < 200; i++) {
            const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(Math.random() * 300) }, () => Math.floor(Math.random() * 256)));
            await send(Math.random() < 0.5 ? bytes : Buffer.concat([Buffer.from('PATCH /f.json HTTP/1.1\r\nContent-Length: 50\r\n\r\n'), bytes]));
        }
        same((await call('PUT', '/after.json', { body: '"fine"' })).status, 200, 'still serving');
    },

    async hostileFrames() {
        // A raw WebSocket speaking the realtime protocol badly: each bad request gets an error
        // answer or the socket is closed; the server goes on serving everyone else.
        const open = () => new Promise((resolve, reject) => {
            const socket = new WebSocket(`ws://127.0.0.1:${port}/.ws?v=5&ns=${ns}`);
            const received = [];
            // Messages longer than 16,384 characters come as a count, then the parts.
            let remaining = 0, parts = [];
            socket.onmessage = event => {
                const text = String(event.data);
                if (remaining > 0) {
                    parts.push(text);
                    if (--remaining === 0) { received.push(parts.join('')); parts = []; }
                } else if (/^[0-9]{1,6}$/.test(text)) {
                    remaining = Number(text);
                } else {
                    received.push(text);
                }
            };
            socket.onopen = () => resolve({ socket, received });
            socket.onerror = reject;
        });
        const wait = async (condition, what) => {
            const deadline = Date.now() + 15000; // a bound, not a speed: a CI machine may be loaded
            while (!condition() && Date.now() < deadline) await new Promise(r => setTimeout(r, 10));
            if (!condition()) throw new Error(`timed out waiting for ${what}`);
        };
        const answerTo = (received, r) => received.map(text => { try { return JSON.parse(text); } catch { return null; } })
            .find(m => m && m.t === 'd' && m.d.r === r);
        const { socket, received } = await open();
        await wait(() => received.length >= 1, 'the hello');
        const hello = JSON.parse(received[0]);
        same([hello.t, hello.d.t, hello.d.d.v], ['c', 'h', '5'], 'the hello');
        if (typeof hello.d.d.ts !== 'number' || typeof hello.d.d.s !== 'string') throw new Error(`the hello: ${received[0]}`);
        const bad = [
            { r: 1, a: 'nope', b: {} },
            { r: 2, a: 'p', b: { p: '/a$b', d: 1 } },
            { r: 3, a: 'p', b: { p: '/x', d: { 'bad.key': 1 } } },
            { r: 4, a: 'm', b: { p: '/x', d: 5 } },
            { r: 5, a: 'q', b: { p: '/x', q: { l: -1, vf: 'l' }, t: 1, h: '' } },
            { r: 6, a: 'q', b: { p: '/x', q: { i: '.key', sp: 5 }, t: 2, h: '' } },
            { r: 7, a: 'p', b: { p: '/x', d: { '.sv': 'nonsense' } } },
            { r: 8, a: 'p', b: { p: '/.info/connected', d: true } },
            { r: 9, a: 'auth', b: { cred: 'not-a-token' } },
            { r: 10, a: 'gauth', b: { cred: 'made-up' } },
            { r: 11, a: 'p', b: { d: 1 } },
            { r: 12, a: 'p', b: { p: '/' + Array.from({ length: 40 }, (_, i) => `k${i}`).join('/'), d: 1 } },
        ];
        for (const request of bad) socket.send(JSON.stringify({ t: 'd', d: request }));
        await wait(() => bad.every(request => answerTo(received, request.r)), 'an answer to every bad request');
        for (const request of bad) {
            const status = answerTo(received, request.r).d.b.s;
            if (status === 'ok') throw new Error(`request ${request.r} (${JSON.stringify(request)}) was answered ok`);
        }
        // Pings are answered, the keep-alive "0" ignored, and a good request still works.
        socket.send('0');
        socket.send(JSON.stringify({ t: 'c', d: { t: 'p', d: {} } }));
        await wait(() => received.includes('{"t":"c","d":{"t":"o","d":{}}}'), 'a pong');
        // A message split over frames, as the SDKs split long ones.
        const long = JSON.stringify({ t: 'd', d: { r: 20, a: 'p', b: { p: '/long', d: 'z'.repeat(40000) } } });
        const parts = long.match(/[\s\S]{1,16384}/g);
        socket.send(String(parts.length));
        for (const part of parts) socket.send(part);
        await wait(() => answerTo(received, 20), 'the long write');
        same(answerTo(received, 20).d.b.s, 'ok', 'the long write');
        socket.send(JSON.stringify({ t: 'd', d: { r: 21, a: 'g', b: { p: '/long', q: {} } } }));
        await wait(() => answerTo(received, 21), 'the read back');
        same(answerTo(received, 21).d.b.d.length, 40000, 'the long value');
        // Garbage that is not a request closes the socket.
        const closed = new Promise(resolve => { socket.onclose = resolve; });
        socket.send('{this is not json');
        await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('not closed')), 5000))]);
        // Random frames on fresh sockets, then a normal client.
        for (let round = 0; round < 20; round++) {
            const { socket } = await open();
            for (let i = 0; i < 20; i++) {
                const choice = Math.random();
                if (choice < 0.3) socket.send(Buffer.from(Array.from({ length: 50 }, () => Math.floor(Math.random() * 256))).toString('latin1'));
                else if (choice < 0.5) socket.send(String(Math.floor(Math.random() * 999999)));
                else if (choice < 0.7) socket.send(new Uint8Array([1, 2, 3]));
                else socket.send(JSON.stringify({ t: 'd', d: { r: i, a: ['p', 'm', 'q', 'n', 'g', 'o', 'om', 'oc'][i % 8], b: { p: '/f/' + i, d: { x: Math.random() }, q: { l: 'x' } } } }));
            }
            socket.close();
        }
        const { socket: good, received: goodReceived } = await open();
        good.send(JSON.stringify({ t: 'd', d: { r: 1, a: 'p', b: { p: '/after', d: 'fine' } } }));
        await wait(() => answerTo(goodReceived, 1), 'a good write');
        same(answerTo(goodReceived, 1).d.b.s, 'ok', 'still serving');
        good.close();
    },
};

const timer = setTimeout(() => { console.error(`scenario ${scenario} timed out`); process.exit(1); }, 60000);
try {
    await scenarios[scenario]();
    clearTimeout(timer);
    console.log(`ok ${scenario}`);
    process.exit(0);
} catch (error) {
    console.error(`FAILED ${scenario}: ${error.stack || error}`);
    process.exit(1);
}
