/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_kernel - a stand-in for /dev/hwtimer's timer rings inside the
 * process, for programs linked statically with libhwtimer.a: its ioctl(),
 * mmap() and munmap() take the library's calls instead of libc's. Open
 * /dev/null as the device (HWTIMER_OPEN_DEVICE); the calls then answer as
 * the driver does:
 *
 *	HWTIMER_IOC_API		every feature, a 1 ms tick, the module's
 *				default ctx_max_pending
 *	HWTIMER_IOC_RING_SETUP	checked as the driver checks it (on
 *				CLOCK_MONOTONIC or CLOCK_BOOTTIME); the
 *				layout of chardev/hwtimer_ring.c
 *	mmap()			of the device at offset 0: the rings, a
 *				zeroed region of the heap; other fds: ENODEV
 *	HWTIMER_IOC_ENTER	a drain, at once (below)
 *	HWTIMER_IOC_STATS	the context's counters, as the driver keeps
 *				them for a context with rings alone, on any
 *				of the driver's clocks (CLOCK_REALTIME too)
 *	anything else		ENOTTY
 *
 * So what the library sends through HWTIMER_IOC_BATCH, the arms that are
 * not the rings' (CLOCK_BOOTTIME, CLOCK_REALTIME, periodic), fails with
 * ENOTTY here: the stand-in serves the rings, nothing else.
 *
 * A drain consumes the submission ring from the kernel's head to the
 * user's tail, while the completion ring has room: an ARM of an idle slot
 * arms it and completes nothing (the driver completes a good ARM
 * silently); a CANCEL of an armed slot completes CANCELLED with
 * HWTIMER_EVENT_LAST, of an idle one NOT_PENDING; a MODIFY of an armed
 * slot moves its deadline and completes nothing, of an idle one
 * NOT_PENDING; an ARM of an armed slot completes -EBUSY, a NOP nothing,
 * and anything else -EINVAL; the drain publishes its claim first and
 * then reads the tail again (HWTIMER_RING_F_RETRACT), as the driver's
 * does. Nothing expires by itself: fake_fire() makes a timeout
 * expire at the next ENTER. There is no periodic drain, and NEED_WAKEUP
 * is never set: as on the device in steady state, the library enters the
 * kernel only when its submission ring is full or it has no free slot.
 */
#ifndef HWTIMER_FAKE_KERNEL_H
#define HWTIMER_FAKE_KERNEL_H

#include <linux/hwtimer.h>
#include <stdbool.h>
#include <stdint.h>

/* What the stand-in answers to HWTIMER_IOC_API. */
#define FAKE_TICK_NS	1000000ULL
#define FAKE_MAX_PENDING 262144ULL
/* The rings' id tag; the driver's are from 1 to 2^20 - 1. */
#define FAKE_ID_TAG	0x5a5a5U

/**
 * struct fake_slot - the stand-in's view of one slot
 * @armed: whether it is armed
 * @deadline: the deadline of its ARM or latest MODIFY
 * @cookie: the cookie of its ARM
 */
struct fake_slot {
	bool armed;
	uint64_t deadline;
	uint64_t cookie;
};

/**
 * struct fake_kernel - the stand-in's state: one context's rings
 * @fd: the fd the rings were set up on, -1 before and after munmap()
 * @setup: the setup as answered
 * @mem: the shared region, NULL before setup and after munmap()
 * @sq_head, @sq_tail, @cq_head, @cq_tail: indices in @mem
 * @sq_claim: the claim in @mem
 * @sqes: the submission ring
 * @cqes: the completion ring
 * @slots: per slot, what the kernel knows of it
 * @sq_next: the kernel's sq head
 * @cq_next: the kernel's cq tail
 * @fire_cookie: fake_fire()'s timeout, 0 for none
 * @stall: ENTERs still to come that consume nothing, as when the
 *	completion ring has no room for the drain
 * @begun: fake_drain_begin() read @begun_tail for the next ENTER's drain
 * @enters: HWTIMER_IOC_ENTER calls
 * @entries: entries consumed
 * @refused: entries completed with an error, and sq tails skipped
 * @nops: NOP entries consumed: ARMs the library took back
 * @fired: expiries written
 * @ctx_armed, @ctx_fired, @ctx_cancelled: the context's counters, as the
 *	driver's: ARMs that armed, expiries, CANCELs that cancelled; reset
 *	by munmap()
 */
struct fake_kernel {
	int fd;
	struct hwtimer_ring_setup setup;
	char *mem;
	uint32_t *sq_head;
	uint32_t *sq_tail;
	uint32_t *sq_claim;
	uint32_t *cq_head;
	uint32_t *cq_tail;
	struct hwtimer_sqe *sqes;
	struct hwtimer_event *cqes;
	struct fake_slot *slots;
	uint32_t sq_next;
	uint32_t cq_next;
	uint64_t fire_cookie;
	unsigned int stall;
	bool begun;
	uint32_t begun_tail;
	uint64_t enters;
	uint64_t entries;
	uint64_t refused;
	uint64_t nops;
	uint64_t fired;
	uint64_t ctx_armed;
	uint64_t ctx_fired;
	uint64_t ctx_cancelled;
};

extern struct fake_kernel fk;

/*
 * Have the armed slot whose ARM carried @cookie (the library's id of the
 * timeout) expire at the start of the next ENTER, as if its deadline
 * passed then: a record with HWTIMER_EVENT_LAST and the slot idle.
 */
void fake_fire(uint64_t cookie);

/*
 * Start the next ENTER's drain now, as a drain on another CPU would: read
 * the sq tail, and with @claim store it as the claim too. The ENTER then
 * drains from that tail, reading the tail again after its claim as the
 * driver does, so that what the library does in between races it.
 */
void fake_drain_begin(bool claim);

/* Entries written to the submission ring that no drain consumed. */
uint32_t fake_sq_waiting(void);

#endif
