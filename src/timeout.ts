// One way to bound a wait: the work's own outcome, or `onTimeout`'s once `ms` have passed (its value,
// or its throw as the rejection). The timer is always cleared, so a settled wait leaves nothing behind.

export function withTimeout<T, F>(work: Promise<T>, ms: number, onTimeout: () => F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<F>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  return Promise.race([work, timedOut]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
}
