#!/usr/bin/env node
// Chang and Roberts' ring election as a manetlab node, in JavaScript
// (Node.js): one JSON event per line on stdin, one JSON list of actions
// per line on stdout (docs/anylang.md). The same rules and notes as
// changroberts.py and ring/chang-roberts.
'use strict';
const readline = require('readline');

let me = 0, epoch = 0, participant = false, initiator = false, leader = 0, noted = 0;

const note = (kind, extra = {}) => ({ do: 'note', note: kind, epoch: String(epoch), ...extra });
const token = (id) => ({ do: 'ring_send', kind: 'token', body: { epoch, id } });

function follow(id) {
  if (leader === id && noted === epoch) return [];
  leader = id; noted = epoch;
  return [note('leader', { leader: id })];
}

function join(e, byMessage) {
  epoch = e;
  participant = !byMessage || initiator;
  const acts = [note('election-start')];
  return participant ? acts.concat([token(me)]) : acts;
}

function handle(ev) {
  switch (ev.event) {
    case 'init': { // a new node: forget everything
      me = ev.id; epoch = 0; participant = false; leader = 0; noted = 0;
      const wanted = ev.params.initiators ?? 'all';
      initiator = wanted === 'all' || wanted.includes(me);
      return initiator ? [{ do: 'set_timer', name: 'start', after: 1.0 }] : [];
    }
    case 'timer':
      return ev.name === 'start' && epoch === 0 ? join(epoch + 1, false) : [];
    case 'describe':
      return [{ do: 'describe', text: `${participant ? 'participant' : 'asleep'}, election ${epoch}, leader ${leader}`,
        state: { epoch, participant, leader } }];
    case 'recv':
      break;
    default:
      return [];
  }
  const m = ev.body;
  let acts = [];
  if (m.epoch < epoch) return [];
  if (m.epoch > epoch) acts = join(m.epoch, true);
  if (ev.kind === 'elected') {
    acts = acts.concat(follow(m.id), [note('election-end')]);
    return m.id !== me ? acts.concat([{ do: 'ring_send', kind: 'elected', body: m }]) : acts;
  }
  if (m.id === me) {
    if (participant) acts = acts.concat(follow(me), [{ do: 'ring_send', kind: 'elected', body: m }]);
  } else if (m.id > me) {
    participant = true;
    acts.push({ do: 'ring_send', kind: 'token', body: m });
  } else if (!participant) {
    participant = true;
    acts.push(token(me));
  }
  return acts;
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  process.stdout.write(JSON.stringify(handle(JSON.parse(line))) + '\n');
});
