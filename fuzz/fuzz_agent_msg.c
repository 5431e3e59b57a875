/* libFuzzer target: arbitrary bytes as one message of the agent link
 * (relay/agent/agent_msg.h), as the relay receives it from an agent. The
 * parser must never crash, hang or leak; what it accepts keeps the bounds
 * the link relies on (numbers within 2^40, a batch never ending beyond it,
 * 1..256 lines without newlines, valid agent ids). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_amsg m;
    cr_error err;
    int rc = cr_amsg_parse((const char *)data, size, &m, &err);
    if (rc == 0) {
        if (m.n < 0 || m.n > CR_AGENT_SEQ_MAX) {
            abort();
        }
        if (m.kind == CR_AMSG_EV) {
            if (m.n < 1 || m.count < 1 || m.count > CR_AGENT_BATCH_MAX ||
                m.n - 1 > CR_AGENT_SEQ_MAX - (int64_t)m.count) {
                abort();
            }
            for (size_t i = 0; i < m.count; i++) {
                if (!m.lens[i] || memchr(m.lines[i], '\n', m.lens[i]) || strlen(m.lines[i]) != m.lens[i]) {
                    abort();
                }
            }
        }
        if ((m.kind == CR_AMSG_HELLO || m.kind == CR_AMSG_WELCOME) && !cr_agent_id_valid(m.agent)) {
            abort();
        }
        if (m.clock > CR_AGENT_TIME_MAX || m.clock < -CR_AGENT_TIME_MAX) {
            abort();
        }
    } else if (!err.text[0]) {
        abort(); /* a refusal says why */
    }
    cr_amsg_clear(&m);
    return 0;
}
