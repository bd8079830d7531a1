// One POST through an undici dispatcher with a handler that only waits for the end of the response:
// the least an undici client can do per request. The raw sender and the floor hub both send this
// way, so the floor differs from the ceiling only by what it does around each POST.
import type { Dispatcher } from 'undici';

export function barePost(
  dispatcher: Dispatcher,
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const handler: Dispatcher.DispatchHandler = {
      onConnect() {
        /* nothing to keep */
      },
      onHeaders() {
        return true;
      },
      onData() {
        return true;
      },
      onComplete() {
        resolve();
      },
      onError(err) {
        reject(err);
      },
    };
    dispatcher.dispatch({ origin, path, method: 'POST', headers, body }, handler);
  });
}
