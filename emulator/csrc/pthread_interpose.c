/* The POSIX threads functions of the whole process, which smpirun's own
 * build exports (build.rs), as the malloc family of alloc_interpose.c:
 * every object of a rank's program binds to them.
 *
 * Written in C for the address the call returns to: a thread library's
 * own users (an OpenMP runtime, a threaded BLAS) run real threads and
 * must get the C library's functions, while the program's calls on a
 * rank are simulated. The decisions are Rust's (src/abi/pthread.rs):
 * these only pass that address on. */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#define CALLER __builtin_return_address(0)

int smpi_pt_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *, const void *);
int smpi_pt_join(pthread_t, void **, const void *);
int smpi_pt_tryjoin(pthread_t, void **, const void *);
int smpi_pt_detach(pthread_t, const void *);
void smpi_pt_exit(void *, const void *) __attribute__((noreturn));
pthread_t smpi_pt_self(const void *);

int smpi_pt_mutex_init(pthread_mutex_t *, const pthread_mutexattr_t *, const void *);
int smpi_pt_mutex_destroy(pthread_mutex_t *, const void *);
int smpi_pt_mutex_lock(pthread_mutex_t *, const struct timespec *, int, const void *);
int smpi_pt_mutex_unlock(pthread_mutex_t *, const void *);

int smpi_pt_cond_init(pthread_cond_t *, const pthread_condattr_t *, const void *);
int smpi_pt_cond_destroy(pthread_cond_t *, const void *);
int smpi_pt_cond_wait(pthread_cond_t *, pthread_mutex_t *, const struct timespec *, const void *);
int smpi_pt_cond_signal(pthread_cond_t *, int, const void *);

int smpi_pt_rwlock_init(pthread_rwlock_t *, const pthread_rwlockattr_t *, const void *);
int smpi_pt_rwlock_destroy(pthread_rwlock_t *, const void *);
int smpi_pt_rwlock_lock(pthread_rwlock_t *, int, const struct timespec *, int, const void *);
int smpi_pt_rwlock_unlock(pthread_rwlock_t *, const void *);

int smpi_pt_barrier_init(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned, const void *);
int smpi_pt_barrier_destroy(pthread_barrier_t *, const void *);
int smpi_pt_barrier_wait(pthread_barrier_t *, const void *);

int smpi_pt_spin_init(pthread_spinlock_t *, int, const void *);
int smpi_pt_spin_destroy(pthread_spinlock_t *, const void *);
int smpi_pt_spin_lock(pthread_spinlock_t *, int, const void *);
int smpi_pt_spin_unlock(pthread_spinlock_t *, const void *);

int smpi_pt_once(pthread_once_t *, void (*)(void), const void *);
int smpi_pt_key_create(pthread_key_t *, void (*)(void *), const void *);
int smpi_pt_key_delete(pthread_key_t, const void *);
void *smpi_pt_getspecific(pthread_key_t, const void *);
int smpi_pt_setspecific(pthread_key_t, uintptr_t, const void *);

int smpi_sem_init(sem_t *, int, unsigned, const void *);
int smpi_sem_destroy(sem_t *, const void *);
int smpi_sem_wait(sem_t *, const struct timespec *, int, const void *);
int smpi_sem_post(sem_t *, const void *);
int smpi_sem_getvalue(sem_t *, int *, const void *);

/* How a lock request may wait (the `mode` argument above). */
enum { WAIT = 0, TRY = 1, TIMED = 2 };

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{ return smpi_pt_create(t, a, f, arg, CALLER); }
int pthread_join(pthread_t t, void **r) { return smpi_pt_join(t, r, CALLER); }
int pthread_tryjoin_np(pthread_t t, void **r) { return smpi_pt_tryjoin(t, r, CALLER); }
int pthread_detach(pthread_t t) { return smpi_pt_detach(t, CALLER); }
void pthread_exit(void *r) { smpi_pt_exit(r, CALLER); }
pthread_t pthread_self(void) { return smpi_pt_self(CALLER); }

int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{ return smpi_pt_mutex_init(m, a, CALLER); }
int pthread_mutex_destroy(pthread_mutex_t *m) { return smpi_pt_mutex_destroy(m, CALLER); }
int pthread_mutex_lock(pthread_mutex_t *m) { return smpi_pt_mutex_lock(m, 0, WAIT, CALLER); }
int pthread_mutex_trylock(pthread_mutex_t *m) { return smpi_pt_mutex_lock(m, 0, TRY, CALLER); }
int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *at)
{ return smpi_pt_mutex_lock(m, at, TIMED, CALLER); }
int pthread_mutex_unlock(pthread_mutex_t *m) { return smpi_pt_mutex_unlock(m, CALLER); }

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{ return smpi_pt_cond_init(c, a, CALLER); }
int pthread_cond_destroy(pthread_cond_t *c) { return smpi_pt_cond_destroy(c, CALLER); }
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{ return smpi_pt_cond_wait(c, m, 0, CALLER); }
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *at)
{ return smpi_pt_cond_wait(c, m, at, CALLER); }
int pthread_cond_signal(pthread_cond_t *c) { return smpi_pt_cond_signal(c, 0, CALLER); }
int pthread_cond_broadcast(pthread_cond_t *c) { return smpi_pt_cond_signal(c, 1, CALLER); }

int pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{ return smpi_pt_rwlock_init(l, a, CALLER); }
int pthread_rwlock_destroy(pthread_rwlock_t *l) { return smpi_pt_rwlock_destroy(l, CALLER); }
int pthread_rwlock_rdlock(pthread_rwlock_t *l) { return smpi_pt_rwlock_lock(l, 0, 0, WAIT, CALLER); }
int pthread_rwlock_tryrdlock(pthread_rwlock_t *l) { return smpi_pt_rwlock_lock(l, 0, 0, TRY, CALLER); }
int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *at)
{ return smpi_pt_rwlock_lock(l, 0, at, TIMED, CALLER); }
int pthread_rwlock_wrlock(pthread_rwlock_t *l) { return smpi_pt_rwlock_lock(l, 1, 0, WAIT, CALLER); }
int pthread_rwlock_trywrlock(pthread_rwlock_t *l) { return smpi_pt_rwlock_lock(l, 1, 0, TRY, CALLER); }
int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *at)
{ return smpi_pt_rwlock_lock(l, 1, at, TIMED, CALLER); }
int pthread_rwlock_unlock(pthread_rwlock_t *l) { return smpi_pt_rwlock_unlock(l, CALLER); }

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{ return smpi_pt_barrier_init(b, a, n, CALLER); }
int pthread_barrier_destroy(pthread_barrier_t *b) { return smpi_pt_barrier_destroy(b, CALLER); }
int pthread_barrier_wait(pthread_barrier_t *b) { return smpi_pt_barrier_wait(b, CALLER); }

int pthread_spin_init(pthread_spinlock_t *s, int shared) { return smpi_pt_spin_init(s, shared, CALLER); }
int pthread_spin_destroy(pthread_spinlock_t *s) { return smpi_pt_spin_destroy(s, CALLER); }
int pthread_spin_lock(pthread_spinlock_t *s) { return smpi_pt_spin_lock(s, WAIT, CALLER); }
int pthread_spin_trylock(pthread_spinlock_t *s) { return smpi_pt_spin_lock(s, TRY, CALLER); }
int pthread_spin_unlock(pthread_spinlock_t *s) { return smpi_pt_spin_unlock(s, CALLER); }

int pthread_once(pthread_once_t *o, void (*f)(void)) { return smpi_pt_once(o, f, CALLER); }
int pthread_key_create(pthread_key_t *k, void (*d)(void *)) { return smpi_pt_key_create(k, d, CALLER); }
int pthread_key_delete(pthread_key_t k) { return smpi_pt_key_delete(k, CALLER); }
void *pthread_getspecific(pthread_key_t k) { return smpi_pt_getspecific(k, CALLER); }
int pthread_setspecific(pthread_key_t k, const void *v) { return smpi_pt_setspecific(k, (uintptr_t)v, CALLER); }

int sem_init(sem_t *s, int shared, unsigned v) { return smpi_sem_init(s, shared, v, CALLER); }
int sem_destroy(sem_t *s) { return smpi_sem_destroy(s, CALLER); }
int sem_wait(sem_t *s) { return smpi_sem_wait(s, 0, WAIT, CALLER); }
int sem_trywait(sem_t *s) { return smpi_sem_wait(s, 0, TRY, CALLER); }
int sem_timedwait(sem_t *s, const struct timespec *at) { return smpi_sem_wait(s, at, TIMED, CALLER); }
int sem_post(sem_t *s) { return smpi_sem_post(s, CALLER); }
int sem_getvalue(sem_t *s, int *v) { return smpi_sem_getvalue(s, v, CALLER); }
