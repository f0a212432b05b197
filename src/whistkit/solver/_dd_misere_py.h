/*
 * whistkit.solver._dd: Python entry points of the misere work (_dd_misere.h), included
 * once by _dd.c before its method table; MISERE_METHODS goes into that table.
 */

/* solve_split(hands, trick, leader, trump, misere, aces_low[, node_limit[, time_limit]])
 * -> (lo, hi, nodes of thread 0, nodes of thread 1, probes 0, probes 1): one position's
 * value (lo == hi unless the budget ran out) searched on two threads at once (two
 * tables; the GIL released) */
static PyObject *py_solve_split(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *hands, *trick;
    int leader, trump, misere, aces_low;
    long long node_limit = 0;
    double time_limit = 0;
    if (!PyArg_ParseTuple(args, "OOiipp|Ld", &hands, &trick, &leader, &trump, &misere,
                          &aces_low, &node_limit, &time_limit))
        return NULL;
    Job j;
    if (parse_job(hands, trick, leader, trump, misere, aces_low, &j) < 0) return NULL;
    j.node_limit = node_limit > 0 ? node_limit : 0;
    j.time_limit = time_limit > 0 ? time_limit : 0;
    Ctx *c0 = NULL, *c1 = NULL;
    int lo = 0, hi = 0;
    long long nodes[2] = {0, 0}, probes[2] = {0, 0};
    Py_BEGIN_ALLOW_THREADS
    c0 = ctx_take();
    c1 = ctx_take();
    if (c0 && c1) CORE_CALL(split_value, c0, c1, &j, &lo, &hi, nodes, probes);
    if (c0) ctx_give(c0);
    if (c1) ctx_give(c1);
    Py_END_ALLOW_THREADS
    if (!c0 || !c1) return PyErr_NoMemory();
    return Py_BuildValue("(iiLLLL)", lo, hi, nodes[0], nodes[1], probes[0], probes[1]);
}

#define MISERE_METHODS                                                                     \
    {"solve_split", py_solve_split, METH_VARARGS,                                          \
     "solve_split(hands, trick, leader, trump, misere, aces_low[, node_limit[, "           \
     "time_limit]]) -> (lo, hi, nodes0, nodes1, probes0, probes1): the value on two "     \
     "threads at once, each with its own table (half of a node budget each)"},
