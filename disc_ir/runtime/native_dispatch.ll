;; The native fast path of disc_ral_call: `disc_rt_dispatch`, the CPU kernel
;; launch over a pthread pool, the cached CPU `ral_const` answers and the holding
;; `ral_shape_assertion`s (see disc_ir/runtime/native.py for the contract).
;;
;; This file is a template: disc_ir.runtime.native.native_module_ir() drops these
;; leading `;;` lines and replaces each {{NAME}} below by the value native.py
;; defines for it (an unknown, missing or unused placeholder is an error):
;;   LAUNCH_NAME, LAUNCH_NAME_BYTES    CPU_LAUNCH_NAME, NUL-terminated, as an LLVM
;;                                     string body, and its length in bytes
;;   CONST_PREFIX, CONST_PREFIX_BYTES  CPU_CONST_PREFIX (no NUL) and its length
;;   ASSERT_NAME, ASSERT_NAME_BYTES    CPU_SHAPE_ASSERTION_NAME, NUL-terminated
;;   MAX_WORKERS, START_GEN_SLOTS      the pool's size limit, and MAX_WORKERS + 1
;;   CHUNKS_PER_THREAD                 chunks per thread of a pooled launch
;;   CONST_ENTRY_WORDS                 words per entry of the constants table
;;   MAGIC, WORD_*                     the NativeContext magic and word indices
;; The `disc_rt_libc_*` declarations name the libc functions native.py binds
;; (its _LIBC_SYMBOLS).

@launch_name = private unnamed_addr constant [{{LAUNCH_NAME_BYTES}} x i8] c"{{LAUNCH_NAME}}"
@const_prefix = private unnamed_addr constant [{{CONST_PREFIX_BYTES}} x i8] c"{{CONST_PREFIX}}"
@assert_name = private unnamed_addr constant [{{ASSERT_NAME_BYTES}} x i8] c"{{ASSERT_NAME}}"
@disc_rt_python_dispatch = global ptr null
@disc_rt_mutex = global [128 x i8] zeroinitializer, align 64
@disc_rt_launch_mutex = global [128 x i8] zeroinitializer, align 64
@disc_rt_work_cond = global [128 x i8] zeroinitializer, align 64
@disc_rt_done_cond = global [128 x i8] zeroinitializer, align 64
@disc_rt_gen = global i64 0
; the chunk claim word of the running job: (generation mod 2^32) << 32 | next chunk
@disc_rt_next = global i64 0, align 64
; chunks of the running job finished so far
@disc_rt_done = global i64 0, align 64
@disc_rt_workers = global i64 0
@disc_rt_start_gen = global [{{START_GEN_SLOTS}} x i64] zeroinitializer
; job words: 0 kernel, 1 params, 2 rank, 3 split dim, 4 its trip count, 5 chunks,
; 6..13 lb, 14..21 ub, 22..29 step, 30 threads taking part (the caller is thread 0)
@disc_rt_job = global [31 x i64] zeroinitializer, align 64

declare i32 @disc_rt_libc_pthread_create(ptr, ptr, ptr, ptr)
declare i32 @disc_rt_libc_pthread_detach(i64)
declare i32 @disc_rt_libc_pthread_mutex_init(ptr, ptr)
declare i32 @disc_rt_libc_pthread_mutex_lock(ptr)
declare i32 @disc_rt_libc_pthread_mutex_trylock(ptr)
declare i32 @disc_rt_libc_pthread_mutex_unlock(ptr)
declare i32 @disc_rt_libc_pthread_cond_init(ptr, ptr)
declare i32 @disc_rt_libc_pthread_cond_wait(ptr, ptr)
declare i32 @disc_rt_libc_pthread_cond_broadcast(ptr)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define private i64 @smin(i64 %a, i64 %b) {
  %c = icmp slt i64 %a, %b
  %r = select i1 %c, i64 %a, i64 %b
  ret i64 %r
}

; Runs part %p of %job on this thread.
define private void @run_part(ptr %job, i64 %p) {
entry:
  %lb = alloca [8 x i64], align 16
  %ub = alloca [8 x i64], align 16
  %jlb = getelementptr i64, ptr %job, i64 6
  %jub = getelementptr i64, ptr %job, i64 14
  %jst = getelementptr i64, ptr %job, i64 22
  call void @llvm.memcpy.p0.p0.i64(ptr %lb, ptr %jlb, i64 64, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %ub, ptr %jub, i64 64, i1 false)
  %kp = getelementptr i64, ptr %job, i64 3
  %k = load i64, ptr %kp
  %cp = getelementptr i64, ptr %job, i64 4
  %cnt = load i64, ptr %cp
  %pp = getelementptr i64, ptr %job, i64 5
  %parts = load i64, ptr %pp
  %sp = getelementptr i64, ptr %jst, i64 %k
  %s = load i64, ptr %sp
  %bp = getelementptr i64, ptr %jlb, i64 %k
  %base = load i64, ptr %bp
  %up = getelementptr i64, ptr %jub, i64 %k
  %upper = load i64, ptr %up
  %pc = mul i64 %p, %cnt
  %first = sdiv i64 %pc, %parts
  %p1 = add i64 %p, 1
  %p1c = mul i64 %p1, %cnt
  %last = sdiv i64 %p1c, %parts
  %off0 = mul i64 %s, %first
  %lo = add i64 %base, %off0
  %off1 = mul i64 %s, %last
  %hi0 = add i64 %base, %off1
  %hi = call i64 @smin(i64 %upper, i64 %hi0)
  %lbk = getelementptr i64, ptr %lb, i64 %k
  store i64 %lo, ptr %lbk
  %ubk = getelementptr i64, ptr %ub, i64 %k
  store i64 %hi, ptr %ubk
  %kernel = load ptr, ptr %job
  %prm = getelementptr i64, ptr %job, i64 1
  %params = load ptr, ptr %prm
  call void %kernel(ptr %lb, ptr %ub, ptr %jst, ptr %params)
  ret void
}

; Claims chunks of job generation %gen (%chunks of them) until none is left and
; runs them; returns when the job is exhausted or a newer one was published.
define private void @claim_chunks(i64 %gen, i64 %chunks) {
entry:
  %tag = shl i64 %gen, 32
  br label %claim
claim:
  %c = load atomic i64, ptr @disc_rt_next acquire, align 8
  %hi = and i64 %c, -4294967296
  %same_job = icmp eq i64 %hi, %tag
  %idx = and i64 %c, 4294967295
  %left = icmp slt i64 %idx, %chunks
  %ok = and i1 %same_job, %left
  br i1 %ok, label %try, label %out
try:
  %c1 = add i64 %c, 1
  %pair = cmpxchg ptr @disc_rt_next, i64 %c, i64 %c1 acq_rel acquire
  %won = extractvalue { i64, i1 } %pair, 1
  br i1 %won, label %run, label %claim
run:
  call void @run_part(ptr @disc_rt_job, i64 %idx)
  %d0 = atomicrmw add ptr @disc_rt_done, i64 1 acq_rel
  %d1 = add i64 %d0, 1
  %last = icmp eq i64 %d1, %chunks
  br i1 %last, label %signal, label %claim
signal:
  call i32 @disc_rt_libc_pthread_mutex_lock(ptr @disc_rt_mutex)
  call i32 @disc_rt_libc_pthread_cond_broadcast(ptr @disc_rt_done_cond)
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_mutex)
  br label %out
out:
  ret void
}

define private ptr @worker(ptr %arg) {
entry:
  %id = ptrtoint ptr %arg to i64
  %sgp = getelementptr [{{START_GEN_SLOTS}} x i64], ptr @disc_rt_start_gen, i64 0, i64 %id
  %g0 = load i64, ptr %sgp
  br label %top
top:
  %mine = phi i64 [ %g0, %entry ], [ %gen, %got ], [ %gen, %work ]
  call i32 @disc_rt_libc_pthread_mutex_lock(ptr @disc_rt_mutex)
  br label %wait
wait:
  %cur = load volatile i64, ptr @disc_rt_gen
  %same = icmp eq i64 %cur, %mine
  br i1 %same, label %sleep, label %got
sleep:
  call i32 @disc_rt_libc_pthread_cond_wait(ptr @disc_rt_work_cond, ptr @disc_rt_mutex)
  br label %wait
got:
  ; the job of generation %gen was published before %gen was (under the mutex)
  %gen = load volatile i64, ptr @disc_rt_gen
  %pp = getelementptr i64, ptr @disc_rt_job, i64 5
  %chunks = load volatile i64, ptr %pp
  %tp = getelementptr i64, ptr @disc_rt_job, i64 30
  %threads = load volatile i64, ptr %tp
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_mutex)
  %taking_part = icmp slt i64 %id, %threads
  br i1 %taking_part, label %work, label %top
work:
  %gen32 = and i64 %gen, 4294967295
  call void @claim_chunks(i64 %gen32, i64 %chunks)
  br label %top
}

; Initializes the locks; returns 0 on success.
define i32 @disc_rt_init() {
  %a = call i32 @disc_rt_libc_pthread_mutex_init(ptr @disc_rt_mutex, ptr null)
  %b = call i32 @disc_rt_libc_pthread_mutex_init(ptr @disc_rt_launch_mutex, ptr null)
  %c = call i32 @disc_rt_libc_pthread_cond_init(ptr @disc_rt_work_cond, ptr null)
  %d = call i32 @disc_rt_libc_pthread_cond_init(ptr @disc_rt_done_cond, ptr null)
  %ab = or i32 %a, %b
  %cd = or i32 %c, %d
  %r = or i32 %ab, %cd
  ret i32 %r
}

; In a child process after fork(): no worker threads exist there; forget them and
; re-initialize the locks (another thread may have held one at the fork).
define i32 @disc_rt_after_fork() {
  store volatile i64 0, ptr @disc_rt_workers
  store volatile i64 0, ptr @disc_rt_done
  %r = call i32 @disc_rt_init()
  ret i32 %r
}

; Grows the pool to %n workers (at most {{MAX_WORKERS}}); returns the pool size.
define i64 @disc_rt_start_workers(i64 %n0) {
entry:
  %tid = alloca [4 x i64], align 16
  %n = call i64 @smin(i64 %n0, i64 {{MAX_WORKERS}})
  call i32 @disc_rt_libc_pthread_mutex_lock(ptr @disc_rt_launch_mutex)
  call i32 @disc_rt_libc_pthread_mutex_lock(ptr @disc_rt_mutex)
  br label %loop
loop:
  %w = load volatile i64, ptr @disc_rt_workers
  %more = icmp slt i64 %w, %n
  br i1 %more, label %spawn, label %out
spawn:
  %id = add i64 %w, 1
  %g = load volatile i64, ptr @disc_rt_gen
  %sgp = getelementptr [{{START_GEN_SLOTS}} x i64], ptr @disc_rt_start_gen, i64 0, i64 %id
  store i64 %g, ptr %sgp
  %arg = inttoptr i64 %id to ptr
  %rc = call i32 @disc_rt_libc_pthread_create(ptr %tid, ptr null, ptr @worker, ptr %arg)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %started, label %out
started:
  %t = load i64, ptr %tid
  call i32 @disc_rt_libc_pthread_detach(i64 %t)
  store volatile i64 %id, ptr @disc_rt_workers
  br label %loop
out:
  %final = load volatile i64, ptr @disc_rt_workers
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_mutex)
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_launch_mutex)
  ret i64 %final
}

; Element %i of the rank-1 i64 memref whose descriptor fields start at args[%base].
define private i64 @memref_elem(ptr %args, i64 %base, i64 %i) {
  %s1 = add i64 %base, 1
  %ap = getelementptr ptr, ptr %args, i64 %s1
  %aa = load ptr, ptr %ap
  %aligned = load ptr, ptr %aa
  %s2 = add i64 %base, 2
  %op = getelementptr ptr, ptr %args, i64 %s2
  %oa = load ptr, ptr %op
  %offset = load i64, ptr %oa
  %s4 = add i64 %base, 4
  %tp = getelementptr ptr, ptr %args, i64 %s4
  %ta = load ptr, ptr %tp
  %stride = load i64, ptr %ta
  %is = mul i64 %i, %stride
  %idx = add i64 %offset, %is
  %ep = getelementptr i64, ptr %aligned, i64 %idx
  %v = load i64, ptr %ep
  ret i64 %v
}

define private i64 @memref_size(ptr %args, i64 %base) {
  %s3 = add i64 %base, 3
  %sp = getelementptr ptr, ptr %args, i64 %s3
  %sa = load ptr, ptr %sp
  %v = load i64, ptr %sa
  ret i64 %v
}

define private ptr @slot_ptr(ptr %args, i64 %slot) {
  %p = getelementptr ptr, ptr %args, i64 %slot
  %a = load ptr, ptr %p
  %v = load ptr, ptr %a
  ret ptr %v
}

; The CPU kernel launch; returns 0 when done, 1 when Python must handle it.
; args: 0 ctx, 1 name, 2-6 lower, 7-11 upper, 12-16 step, 17 hint, 18 kernel, 19 params.
define private i32 @launch(ptr %ctx, ptr %args) {
entry:
  %job = alloca [31 x i64], align 16
  %rank = call i64 @memref_size(ptr %args, i64 2)
  %ur = call i64 @memref_size(ptr %args, i64 7)
  %sr = call i64 @memref_size(ptr %args, i64 12)
  %e1 = icmp eq i64 %rank, %ur
  %e2 = icmp eq i64 %rank, %sr
  %r1 = icmp sge i64 %rank, 1
  %r8 = icmp sle i64 %rank, 8
  %kernel = call ptr @slot_ptr(ptr %args, i64 18)
  %params = call ptr @slot_ptr(ptr %args, i64 19)
  %knn = icmp ne ptr %kernel, null
  %c1 = and i1 %e1, %e2
  %c2 = and i1 %r1, %r8
  %c3 = and i1 %c1, %c2
  %ok = and i1 %c3, %knn
  br i1 %ok, label %fill, label %python
fill:
  store ptr %kernel, ptr %job
  %jp = getelementptr i64, ptr %job, i64 1
  store ptr %params, ptr %jp
  %jr = getelementptr i64, ptr %job, i64 2
  store i64 %rank, ptr %jr
  %nt_p = getelementptr i64, ptr %ctx, i64 {{WORD_NUM_THREADS}}
  %nt = load i64, ptr %nt_p
  br label %dims
dims:
  %i = phi i64 [ 0, %fill ], [ %i1, %dim_ok ]
  %total = phi i64 [ 1, %fill ], [ %total1, %dim_ok ]
  %lbv = call i64 @memref_elem(ptr %args, i64 2, i64 %i)
  %ubv = call i64 @memref_elem(ptr %args, i64 7, i64 %i)
  %stv = call i64 @memref_elem(ptr %args, i64 12, i64 %i)
  %i6 = add i64 %i, 6
  %plb = getelementptr i64, ptr %job, i64 %i6
  store i64 %lbv, ptr %plb
  %i14 = add i64 %i, 14
  %pub = getelementptr i64, ptr %job, i64 %i14
  store i64 %ubv, ptr %pub
  %i22 = add i64 %i, 22
  %pst = getelementptr i64, ptr %job, i64 %i22
  store i64 %stv, ptr %pst
  %pos = icmp sgt i64 %stv, 0
  br i1 %pos, label %dim_ok, label %python
dim_ok:
  %span = sub i64 %ubv, %lbv
  %sm1 = sub i64 %stv, 1
  %sp1 = add i64 %span, %sm1
  %cnt0 = sdiv i64 %sp1, %stv
  %neg = icmp sle i64 %span, 0
  %cnt = select i1 %neg, i64 0, i64 %cnt0
  %total1 = mul i64 %total, %cnt
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %rank
  br i1 %more, label %dims, label %counted
counted:
  %empty = icmp eq i64 %total1, 0
  br i1 %empty, label %done, label %plan
plan:
  %hint_p = call ptr @slot_ptr(ptr %args, i64 17)
  %hint = ptrtoint ptr %hint_p to i64
  %mu_p = getelementptr i64, ptr %ctx, i64 {{WORD_MIN_UNITS}}
  %mu0 = load i64, ptr %mu_p
  %mu_pos = icmp sgt i64 %mu0, 0
  %mu = select i1 %mu_pos, i64 %mu0, i64 1
  %work = mul i64 %total1, %hint
  %units = sdiv i64 %work, %mu
  %units_pos = icmp sgt i64 %units, 0
  %units1 = select i1 %units_pos, i64 %units, i64 1
  %workers = load volatile i64, ptr @disc_rt_workers
  %pool = add i64 %workers, 1
  %pa = call i64 @smin(i64 %nt, i64 %pool)
  %pb = call i64 @smin(i64 %pa, i64 %total1)
  %parts0 = call i64 @smin(i64 %pb, i64 %units1)
  %single = icmp sle i64 %parts0, 1
  br i1 %single, label %inline_all, label %split
split:
  br label %find
find:
  ; the first dimension whose trip count reaches parts0, else the largest one
  %k = phi i64 [ 0, %split ], [ %k1, %find_next ]
  %best = phi i64 [ 0, %split ], [ %best1, %find_next ]
  %bestc = phi i64 [ 0, %split ], [ %bestc1, %find_next ]
  %kk = call i64 @trip_count(ptr %job, i64 %k)
  %enough = icmp sge i64 %kk, %parts0
  br i1 %enough, label %found, label %find_next
find_next:
  %bigger = icmp sgt i64 %kk, %bestc
  %best1 = select i1 %bigger, i64 %k, i64 %best
  %bestc1 = select i1 %bigger, i64 %kk, i64 %bestc
  %k1 = add i64 %k, 1
  %kmore = icmp slt i64 %k1, %rank
  br i1 %kmore, label %find, label %found_best
found:
  br label %chosen
found_best:
  br label %chosen
chosen:
  %dim = phi i64 [ %k, %found ], [ %best1, %found_best ]
  %dimc = phi i64 [ %kk, %found ], [ %bestc1, %found_best ]
  %parts = call i64 @smin(i64 %parts0, i64 %dimc)
  %one = icmp sle i64 %parts, 1
  br i1 %one, label %inline_all, label %try_pool
inline_all:
  %lbp = getelementptr i64, ptr %job, i64 6
  %ubp = getelementptr i64, ptr %job, i64 14
  %stp = getelementptr i64, ptr %job, i64 22
  call void %kernel(ptr %lbp, ptr %ubp, ptr %stp, ptr %params)
  br label %done
try_pool:
  ; a launch from another thread holds the pool: run everything here
  %busy = call i32 @disc_rt_libc_pthread_mutex_trylock(ptr @disc_rt_launch_mutex)
  %free = icmp eq i32 %busy, 0
  br i1 %free, label %pooled, label %inline_all
pooled:
  ; {{CHUNKS_PER_THREAD}} chunks per thread, claimed dynamically: a thread the OS does not
  ; schedule soon leaves its share to the others instead of holding up the launch
  %want = mul i64 %parts, {{CHUNKS_PER_THREAD}}
  %want1 = call i64 @smin(i64 %want, i64 %dimc)
  %few = icmp slt i64 %units1, %parts
  %unit_cap = select i1 %few, i64 %parts, i64 %units1
  %chunks = call i64 @smin(i64 %want1, i64 %unit_cap)
  %jk = getelementptr i64, ptr %job, i64 3
  store i64 %dim, ptr %jk
  %jc = getelementptr i64, ptr %job, i64 4
  store i64 %dimc, ptr %jc
  %jpp = getelementptr i64, ptr %job, i64 5
  store i64 %chunks, ptr %jpp
  %jt = getelementptr i64, ptr %job, i64 30
  store i64 %parts, ptr %jt
  ; the job is written under the mutex, with its generation: a worker that woke for
  ; the previous generation and reads the job words under the mutex must never see
  ; this job's chunk count with the old generation (it would claim a chunk of the
  ; finished job, run it on this job's words, and count it in this job's `done`)
  call i32 @disc_rt_libc_pthread_mutex_lock(ptr @disc_rt_mutex)
  call void @llvm.memcpy.p0.p0.i64(ptr @disc_rt_job, ptr %job, i64 248, i1 false)
  %g = load volatile i64, ptr @disc_rt_gen
  %g1 = add i64 %g, 1
  store volatile i64 %g1, ptr @disc_rt_gen
  %g32 = and i64 %g1, 4294967295
  %tag = shl i64 %g32, 32
  store atomic i64 0, ptr @disc_rt_done release, align 8
  store atomic i64 %tag, ptr @disc_rt_next release, align 8
  call i32 @disc_rt_libc_pthread_cond_broadcast(ptr @disc_rt_work_cond)
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_mutex)
  call void @claim_chunks(i64 %g32, i64 %chunks)
  call i32 @disc_rt_libc_pthread_mutex_lock(ptr @disc_rt_mutex)
  br label %join
join:
  %finished_n = load atomic i64, ptr @disc_rt_done acquire, align 8
  %finished = icmp eq i64 %finished_n, %chunks
  br i1 %finished, label %joined, label %join_wait
join_wait:
  call i32 @disc_rt_libc_pthread_cond_wait(ptr @disc_rt_done_cond, ptr @disc_rt_mutex)
  br label %join
joined:
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_mutex)
  call i32 @disc_rt_libc_pthread_mutex_unlock(ptr @disc_rt_launch_mutex)
  br label %done
done:
  ret i32 0
python:
  ret i32 1
}

define private i64 @trip_count(ptr %job, i64 %k) {
  %i6 = add i64 %k, 6
  %plb = getelementptr i64, ptr %job, i64 %i6
  %lb = load i64, ptr %plb
  %i14 = add i64 %k, 14
  %pub = getelementptr i64, ptr %job, i64 %i14
  %ub = load i64, ptr %pub
  %i22 = add i64 %k, 22
  %pst = getelementptr i64, ptr %job, i64 %i22
  %st = load i64, ptr %pst
  %span = sub i64 %ub, %lb
  %sm1 = sub i64 %st, 1
  %sp1 = add i64 %span, %sm1
  %c = sdiv i64 %sp1, %st
  %neg = icmp sle i64 %span, 0
  %r = select i1 %neg, i64 0, i64 %c
  ret i64 %r
}

define private i1 @is_launch(ptr %name) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %same ]
  %ap = getelementptr i8, ptr %name, i64 %i
  %a = load i8, ptr %ap
  %bp = getelementptr [{{LAUNCH_NAME_BYTES}} x i8], ptr @launch_name, i64 0, i64 %i
  %b = load i8, ptr %bp
  %eq = icmp eq i8 %a, %b
  br i1 %eq, label %same, label %differ
same:
  %end = icmp eq i8 %a, 0
  %i1 = add i64 %i, 1
  br i1 %end, label %match, label %loop
match:
  ret i1 true
differ:
  ret i1 false
}

; True when %name starts with CPU_CONST_PREFIX.
define private i1 @is_cpu_const(ptr %name) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %same ]
  %done = icmp eq i64 %i, {{CONST_PREFIX_BYTES}}
  br i1 %done, label %match, label %compare
compare:
  %ap = getelementptr i8, ptr %name, i64 %i
  %a = load i8, ptr %ap
  %bp = getelementptr [{{CONST_PREFIX_BYTES}} x i8], ptr @const_prefix, i64 0, i64 %i
  %b = load i8, ptr %bp
  %eq = icmp eq i8 %a, %b
  br i1 %eq, label %same, label %differ
same:
  %i1 = add i64 %i, 1
  br label %loop
match:
  ret i1 true
differ:
  ret i1 false
}

; True when the NUL-terminated strings %a and %b are equal.
define private i1 @same_text(ptr %a, ptr %b) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %next ]
  %ap = getelementptr i8, ptr %a, i64 %i
  %x = load i8, ptr %ap
  %bp = getelementptr i8, ptr %b, i64 %i
  %y = load i8, ptr %bp
  %eq = icmp eq i8 %x, %y
  br i1 %eq, label %next_or_end, label %differ
next_or_end:
  %end = icmp eq i8 %x, 0
  br i1 %end, label %match, label %next
next:
  %i1 = add i64 %i, 1
  br label %loop
match:
  ret i1 true
differ:
  ret i1 false
}

; Answers a CPU ral_const call from the context's constants table (filled by
; the Python entry on its first call for that unique_index); 0 when handled.
define private i32 @cached_const(ptr %table, ptr %args) {
entry:
  %np = getelementptr ptr, ptr %args, i64 2
  %namep = load ptr, ptr %np
  %key = load i64, ptr %namep
  %namep_text = inttoptr i64 %key to ptr
  %ip = getelementptr ptr, ptr %args, i64 3
  %idxp = load ptr, ptr %ip
  %idx32 = load i32, ptr %idxp
  %idx = sext i32 %idx32 to i64
  %cap = load i64, ptr %table
  %nonneg = icmp sge i64 %idx, 0
  %below = icmp slt i64 %idx, %cap
  %inside = and i1 %nonneg, %below
  br i1 %inside, label %probe, label %miss
probe:
  %off0 = mul i64 %idx, {{CONST_ENTRY_WORDS}}
  %off = add i64 %off0, 1
  %slot = getelementptr i64, ptr %table, i64 %off
  %have = load atomic i64, ptr %slot acquire, align 8
  %filled = icmp ne i64 %have, 0
  %named = icmp ne i64 %key, 0
  %both = and i1 %filled, %named
  br i1 %both, label %compare, label %miss
compare:
  ; the same name may live at several addresses (one global per use)
  %same = icmp eq i64 %have, %key
  br i1 %same, label %copy, label %compare_text
compare_text:
  %have_p = inttoptr i64 %have to ptr
  %equal = call i1 @same_text(ptr %have_p, ptr %namep_text)
  br i1 %equal, label %copy, label %miss
copy:
  %rp = getelementptr i64, ptr %slot, i64 1
  %rank = load i64, ptr %rp
  %twice = shl i64 %rank, 1
  %words = add i64 %twice, 3
  %bytes = shl i64 %words, 3
  %desc = getelementptr i64, ptr %slot, i64 2
  %op = getelementptr ptr, ptr %args, i64 4
  %out = load ptr, ptr %op
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %desc, i64 %bytes, i1 false)
  ret i32 0
miss:
  ret i32 1
}

; A holding shape assertion needs no Python: its predicate (a rank-0 i1
; memref: {allocated, aligned, offset}) is nonzero. 0 when handled.
define private i32 @holding_assertion(ptr %args) {
entry:
  %pp = getelementptr ptr, ptr %args, i64 2
  %desc = load ptr, ptr %pp
  %ap = getelementptr i64, ptr %desc, i64 1
  %aligned = load ptr, ptr %ap
  %op = getelementptr i64, ptr %desc, i64 2
  %offset = load i64, ptr %op
  %bp = getelementptr i8, ptr %aligned, i64 %offset
  %pred = load i8, ptr %bp
  %holds = icmp ne i8 %pred, 0
  %rc = select i1 %holds, i32 0, i32 1
  ret i32 %rc
}

define void @disc_rt_dispatch(ptr %ctx, ptr %name, ptr %args) {
entry:
  %has_ctx = icmp ne ptr %ctx, null
  br i1 %has_ctx, label %check_magic, label %python
check_magic:
  %magic = load i64, ptr %ctx
  %is_ours = icmp eq i64 %magic, {{MAGIC}}
  br i1 %is_ours, label %check_table, label %python
check_table:
  %tp = getelementptr i64, ptr %ctx, i64 {{WORD_CONST_TABLE}}
  %table = load ptr, ptr %tp
  %has_table = icmp ne ptr %table, null
  br i1 %has_table, label %check_const, label %check_assert
check_const:
  %is_const = call i1 @is_cpu_const(ptr %name)
  br i1 %is_const, label %const, label %check_assert
const:
  %crc = call i32 @cached_const(ptr %table, ptr %args)
  %cached = icmp eq i32 %crc, 0
  br i1 %cached, label %skip, label %python
check_assert:
  %ap = getelementptr i64, ptr %ctx, i64 {{WORD_FAST_ASSERT}}
  %fast_assert = load i64, ptr %ap
  %assert_on = icmp ne i64 %fast_assert, 0
  br i1 %assert_on, label %check_assert_name, label %check_fast
check_assert_name:
  %is_assert = call i1 @same_text(ptr %name, ptr @assert_name)
  br i1 %is_assert, label %assertion, label %check_fast
assertion:
  %arc = call i32 @holding_assertion(ptr %args)
  %holds = icmp eq i32 %arc, 0
  br i1 %holds, label %skip, label %python
check_fast:
  %fp = getelementptr i64, ptr %ctx, i64 {{WORD_FAST_LAUNCH}}
  %fast = load i64, ptr %fp
  %fast_on = icmp ne i64 %fast, 0
  br i1 %fast_on, label %check_name, label %python
check_name:
  %hit = call i1 @is_launch(ptr %name)
  br i1 %hit, label %check_error, label %python
check_error:
  %ep = getelementptr i64, ptr %ctx, i64 {{WORD_ERROR}}
  %err = load volatile i64, ptr %ep
  %in_error = icmp ne i64 %err, 0
  br i1 %in_error, label %skip, label %run
run:
  %rc = call i32 @launch(ptr %ctx, ptr %args)
  %handled = icmp eq i32 %rc, 0
  br i1 %handled, label %skip, label %python
skip:
  ret void
python:
  %cb = load ptr, ptr @disc_rt_python_dispatch
  call void %cb(ptr %ctx, ptr %name, ptr %args)
  ret void
}
