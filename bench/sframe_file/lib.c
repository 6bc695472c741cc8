// SPDX-License-Identifier: GPL-2.0
/*
 * One of the 20 libraries of bench/sframe_file's program (built 20 times with
 * -DLIB=01..20): 400 small functions, so each has a .sframe of some 400 FDEs,
 * and an entry that calls them all, over and over.
 */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

__attribute__((noinline)) static int step(int x)
{
	return x * 31 + 7;
}

#define F(i)                                                                           \
	__attribute__((noinline)) static int f_##i(int x)                             \
	{                                                                              \
		volatile int v = x + 1##i % 7;                                         \
		return step(v) ^ (int)(1##i);                                          \
	}
#define F10(i) F(i##0) F(i##1) F(i##2) F(i##3) F(i##4) F(i##5) F(i##6) F(i##7) F(i##8) F(i##9)
#define F100(i) F10(i##0) F10(i##1) F10(i##2) F10(i##3) F10(i##4) F10(i##5) F10(i##6) \
	F10(i##7) F10(i##8) F10(i##9)
F100(0) F100(1) F100(2) F100(3)

#define P(i) f_##i,
#define P10(i) P(i##0) P(i##1) P(i##2) P(i##3) P(i##4) P(i##5) P(i##6) P(i##7) P(i##8) P(i##9)
#define P100(i) P10(i##0) P10(i##1) P10(i##2) P10(i##3) P10(i##4) P10(i##5) P10(i##6) \
	P10(i##7) P10(i##8) P10(i##9)
static int (*const fns[])(int) = { P100(0) P100(1) P100(2) P100(3) };

/* @rounds calls of every function; returns what they made of @x. */
int CAT(lib_run_, LIB)(int x, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (unsigned int k = 0; k < sizeof(fns) / sizeof(fns[0]); k++)
			x = fns[k](x);
	return x;
}
