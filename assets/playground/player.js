// The player the playground plays as, and every request the page makes.
// On the first visit the page signs up a guest ("Guest 4821") and keeps
// {id, name, token} in localStorage; later visits reuse it. The token goes
// on the routes a player's token opens for the page (/v1/games*, the
// races of /v1/matches* and the player's own /v1/players/me), so the
// page's games are the player's and its wins are ranked; any other
// request carries the API key typed in, if any. A token the server
// refuses (401: it lost its players, or erased this one) is replaced by a
// new guest once a visit, and the request that met the refusal is sent
// again.

const STORED = 'linkpath.player';
// The sign-up route takes the API key, never a token.
const SIGN_UP = '/v1/players';

export class ApiError extends Error {
  constructor(status, error, method, path) {
    super(`${method} ${path} answered ${status}\n${error.code}: ${error.message}${error.field ? ` (field ${error.field})` : ''}`);
    this.status = status;
    this.code = error.code;
    this.reason = error.reason;
    this.detail = error.message;
  }
}

const account = {
  player: null, // { id, name, token }, or null while none is signed in
  key: () => '', // the API key typed in
  // The new guest made for a refused token: { from: that token, signed:
  // a promise of whether it worked }. One a visit, so that a server that
  // refuses every token cannot make the page sign up without end.
  renewal: null,
  // Tells the page the player changed on its own, with a line to show.
  changed: () => {},
};

// `key` reads the API key typed in; `changed(note)` is called when the
// player is replaced or lost without being asked.
export function setup({ key, changed }) {
  account.key = key;
  account.changed = changed;
}

export function player() { return account.player; }

function keep(player) {
  account.player = player;
  try {
    if (player) localStorage.setItem(STORED, JSON.stringify(player)); else localStorage.removeItem(STORED);
  } catch (_) { /* storage refused: the player lasts as long as the page */ }
}

// The player kept by an earlier visit, if what is kept is one.
function stored() {
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(STORED)); } catch (_) { return null; }
  const text = (v) => typeof v === 'string' && v !== '';
  return kept && text(kept.id) && text(kept.name) && text(kept.token)
    ? { id: kept.id, name: kept.name, token: kept.token } : null;
}

// The bearer a request to `path` carries: the player's token where it
// opens the route, else the API key; '' for none.
export function authorization(path) {
  const player = account.player;
  if (player && path !== SIGN_UP && (path.startsWith('/v1/games') || path.startsWith('/v1/matches') || path.startsWith('/v1/players/me'))) {
    return player.token;
  }
  return account.key();
}

// Sends one request; resolves to the parsed answer, or throws an ApiError
// carrying the API's error. `version` pins the action to the game shown
// (If-Match): a game changed elsewhere meanwhile is a 412, not a surprise.
async function send(method, path, bearer, { body, version } = {}) {
  const headers = {};
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (version !== undefined) headers['If-Match'] = `"${version}"`;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, { code: 'unreachable', message: `the server did not answer (${e.message})` }, method, path);
  }
  const text = await response.text();
  let json = null;
  try { json = JSON.parse(text); } catch (_) { /* not JSON: kept as text below */ }
  if (response.ok) return json;
  const error = json && json.error ? json.error : { code: `http_${response.status}`, message: text };
  throw new ApiError(response.status, error, method, path);
}

// A request as the player: a refused token is replaced (once a visit) and
// the request sent again with the new one.
export async function api(method, path, options) {
  const bearer = authorization(path);
  try {
    return await send(method, path, bearer, options);
  } catch (e) {
    const refused = e.status === 401 && account.player !== null && bearer === account.player.token;
    if (!refused || !(await renew(bearer))) throw e;
    return send(method, path, authorization(path), options);
  }
}

// Whether a player other than the one whose token was `refused` is signed
// in now, signing up a new guest the first time a token is refused.
async function renew(refused) {
  if (!account.renewal) {
    const lost = account.player;
    account.renewal = {
      from: refused,
      signed: signUp().then((player) => {
        account.changed(`This server no longer knew ${lost.name}, so the page signed up a new guest, ${player.name}.`);
        return true;
      }, (e) => {
        keep(null);
        account.changed(`This server no longer knew ${lost.name}, and signing up anew was refused: ${e.detail}`);
        return false;
      }),
    };
  }
  if (account.renewal.from !== refused) return account.player !== null && account.player.token !== refused;
  return account.renewal.signed;
}

// A new guest, named "Guest" and four random digits, kept for later visits.
export async function signUp() {
  const digits = String(Math.floor(Math.random() * 10000)).padStart(4, '0');
  const answer = await send('POST', SIGN_UP, account.key(), { body: { name: `Guest ${digits}` } });
  keep({ id: answer.id, name: answer.name, token: answer.token });
  return account.player;
}

// The player of an earlier visit, as the server has it now (its name may
// have changed elsewhere), or a new guest on the first visit.
export async function signIn() {
  const kept = stored();
  if (!kept) return signUp();
  account.player = kept;
  const me = await api('GET', '/v1/players/me');
  keep({ ...account.player, name: me.name });
  return account.player;
}

// Renames the player; resolves to the name the server kept.
export async function rename(name) {
  const me = await api('PATCH', '/v1/players/me', { body: { name } });
  keep({ ...account.player, name: me.name });
  return me.name;
}
