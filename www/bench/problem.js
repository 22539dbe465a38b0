// A problem the benchmark names for the page to say in its language: { key, params } of a
// `reason.*` text in www/bench/texts.js. Anything else thrown is said as its message.

export class Problem extends Error {
  constructor(key, params = {}) {
    super(`${key} ${JSON.stringify(params)}`);
    this.reason = { key, params };
  }
}

/** What went wrong, as a reason the page can say: a Problem's own, else the error's message. */
export const reasonOf = (error) => error?.reason ?? { key: 'error', params: { message: error?.message || String(error) } };

/** `await promise` as a value: { value } or { reason }. */
export async function attempt(promise) {
  try {
    return { value: await promise };
  } catch (error) {
    return { reason: reasonOf(error) };
  }
}
