import { expect } from 'chai';
import { createReceiverSlots, MAX_BUSY_WAIT_MS, MIN_BUSY_WAIT_MS } from '../../core/webhooks/receiver-slots';

describe('receiver slots: a cap per receiver, and busy waits paced by its queue', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => (clock = 1_000_000));

  it('gives at most its cap of slots to one receiver, and frees a slot once', () => {
    const slots = createReceiverSlots(2, now);
    const first = slots.tryAcquire('org-a');
    const second = slots.tryAcquire('org-a');
    expect(slots.tryAcquire('org-a')).to.equal(undefined);
    expect(slots.tryAcquire('org-b'), 'another receiver is not held back').to.be.a('function');
    first!();
    first!();
    expect(slots.inFlight('org-a')).to.equal(1);
    second!();
    expect(slots.inFlight('org-a')).to.equal(0);
  });

  it('gives at most its total of slots across receivers, so hanging receivers cannot take every one', () => {
    const slots = createReceiverSlots(2, now, 3);
    const held = [slots.tryAcquire('hangs-1'), slots.tryAcquire('hangs-1'), slots.tryAcquire('hangs-2')];
    expect(held.every((release) => typeof release === 'function')).to.equal(true);
    expect(slots.tryAcquire('healthy'), 'the total is reached').to.equal(undefined);
    expect(slots.inFlight('healthy')).to.equal(0);
    held[0]!();
    held[0]!(); // freed once only
    const healthy = slots.tryAcquire('healthy');
    expect(healthy).to.be.a('function');
    expect(slots.tryAcquire('hangs-2')).to.equal(undefined);
  });

  it('makes each waiter wait for the attempts ahead of it at the receiver’s recent pace', () => {
    const slots = createReceiverSlots(2, now);
    const held = [slots.tryAcquire('tarpit')!, slots.tryAcquire('tarpit')!];
    clock += 10_000; // each attempt hangs for 10 s
    held.forEach((release) => release());
    // average 1 s → 2.8 s → 4.24 s after two 10 s attempts (a moving average with weight 0.2)
    slots.tryAcquire('tarpit');
    slots.tryAcquire('tarpit');
    expect(slots.busyWaitMs('tarpit', 2)).to.equal(Math.round((2 / 2) * 4_240));
    expect(slots.busyWaitMs('tarpit', 11)).to.equal(Math.round((11 / 2) * 4_240));
    expect(slots.busyWaitMs('tarpit', 11), 'the same queue, the same wait: nothing is remembered').to.equal(
      Math.round((11 / 2) * 4_240),
    );
  });

  it('paces a receiver by its oldest attempt in flight while that is longer than its recent attempts', () => {
    const slots = createReceiverSlots(2, now);
    slots.tryAcquire('tarpit');
    expect(slots.busyWaitMs('tarpit', 2), 'the first estimate: 1 s an attempt').to.equal(MIN_BUSY_WAIT_MS);
    clock += 6_000; // the attempt hangs: none has finished, and it is 6 s old
    slots.tryAcquire('tarpit');
    expect(slots.busyWaitMs('tarpit', 2)).to.equal(Math.round((2 / 2) * 6_000));
    const healthy = slots.tryAcquire('healthy')!;
    clock += 50;
    healthy();
    slots.tryAcquire('healthy');
    slots.tryAcquire('healthy');
    expect(slots.busyWaitMs('healthy', 2), 'a quick receiver keeps short waits').to.equal(MIN_BUSY_WAIT_MS);
  });

  it('keeps every wait between its bounds', () => {
    const slots = createReceiverSlots(1, now);
    slots.tryAcquire('org');
    expect(slots.busyWaitMs('org', 0)).to.equal(MIN_BUSY_WAIT_MS);
    expect(slots.busyWaitMs('org', 2_000)).to.equal(MAX_BUSY_WAIT_MS);
  });

  describe('waiting in the worker for a fast receiver (acquire)', () => {
    /** Attempts of `ms` each until the receiver's recent pace is about that. */
    function warm(slots: ReturnType<typeof createReceiverSlots>, receiver: string, ms: number) {
      for (let i = 0; i < 20; i++) {
        const release = slots.tryAcquire(receiver)!;
        clock += ms;
        release();
      }
    }

    it('hands a fast receiver’s next free slots to the attempts waiting, in the order they came', async () => {
      const slots = createReceiverSlots(1, now);
      warm(slots, 'fast', 10);
      const first = await slots.acquire('fast', 250);
      const order: string[] = [];
      const waiting = ['a', 'b'].map((id) =>
        slots.acquire('fast', 250).then((release) => {
          order.push(id);
          return release;
        }),
      );
      expect(slots.tryAcquire('fast'), 'no slot ahead of the queue').to.equal(undefined);
      first!();
      const a = await waiting[0];
      expect(a, 'the freed slot went to the first waiter').to.be.a('function');
      expect(slots.inFlight('fast')).to.equal(1);
      a!();
      expect(await waiting[1]).to.be.a('function');
      expect(order).to.deep.equal(['a', 'b']);
    });

    it('serves the head of the receiver’s queue before the attempts waiting in the worker, judged by its own wait', async () => {
      const slots = createReceiverSlots(1, now);
      warm(slots, 'fast', 100);
      const first = slots.tryAcquire('fast')!;
      const order: string[] = [];
      const waiting = ['a', 'b'].map((id) =>
        slots.acquire('fast', 250).then((release) => {
          if (release) order.push(id);
          release?.();
        }),
      );
      // Two ahead at 100 ms each: a third in line would wait longer than 250 ms and is answered at once.
      expect(await slots.acquire('fast', 250)).to.equal(undefined);
      const head = slots.acquire('fast', 250, { first: true }).then((release) => {
        if (release) order.push('head');
        release?.();
      });
      first();
      await Promise.all([...waiting, head]);
      expect(order).to.deep.equal(['head', 'a', 'b']);
    });

    it('answers at once, without waiting, for a receiver whose queue would take longer than the wait', async () => {
      const slots = createReceiverSlots(1, now);
      warm(slots, 'slow', 2_000);
      slots.tryAcquire('slow');
      const stillWaiting = new Promise((resolve) => setImmediate(() => resolve('still waiting')));
      expect(await Promise.race([slots.acquire('slow', 250), stillWaiting])).to.equal(undefined);
    });

    it('gives up after the wait and leaves the queue, so the next free slot goes to whoever asks', async () => {
      const slots = createReceiverSlots(1, now);
      warm(slots, 'fast', 10);
      const held = slots.tryAcquire('fast')!;
      expect(await slots.acquire('fast', 20)).to.equal(undefined);
      held();
      expect(slots.inFlight('fast'), 'the slot was not handed to the attempt that gave up').to.equal(0);
      expect(slots.tryAcquire('fast')).to.be.a('function');
    });

    it('waits for the total across receivers too, and is served when another receiver frees one', async () => {
      const slots = createReceiverSlots(4, now, 1);
      warm(slots, 'fast', 10);
      const other = slots.tryAcquire('other')!;
      const waiting = slots.acquire('fast', 250);
      other();
      expect(await waiting).to.be.a('function');
      expect(slots.inFlight('fast')).to.equal(1);
    });
  });
});
